// The timeline under the player. The shots are blocks whose widths are their lengths, in
// order: chosen by click, moved by dragging or Alt+Left/Right, removed with Delete, each with
// trim handles at its in and out points. Under them the music and voice lanes, each clip a
// block at its place on the cut, moved by dragging it or with the arrow keys, with trim
// handles of its own. The timeline scrolls inside itself, so nothing is wider than the screen.
// Every change is one of the sequence editor's edits; this only renders its view.
import { useRef, type CSSProperties, type DragEvent, type KeyboardEvent } from "react";
import type { SequenceEditor } from "../../../pkg/studio_sequence.js";
import { runNow } from "../core/useStudio";
import { Grip } from "./Grip";
import { ShotMaking } from "./ShotMaking";
import type { Lane, LaneClip, PanelView, Sequence, Shot } from "./types";

/** Where Alt+Left and Alt+Right move a shot. */
const SHOT_STEPS: Partial<Record<string, number>> = { ArrowLeft: -1, ArrowRight: 1 };

const LANES: { lane: Lane; name: string }[] = [
  { lane: "music", name: "Music" },
  { lane: "voice", name: "Voice" },
];

export const seconds = (frames: number, fps: number) => `${(frames / fps).toFixed(2)} s`;

const percent = (part: number, whole: number) => `${(part / whole) * 100}%`;

type Props = {
  editor: SequenceEditor;
  view: PanelView;
  sequence: Sequence;
  /** The cut's length in frames. */
  frames: number;
  chosen: string | null;
  onChoose: (id: string | null) => void;
};

export function Timeline({ editor, view, sequence, frames, chosen, onChoose }: Props) {
  const track = useRef<HTMLDivElement>(null);
  const strip = useRef<HTMLOListElement>(null);
  const { shots, fps } = sequence;
  const clipEnd = (c: LaneClip) => c.start_frame + c.out_frame - c.in_frame;
  const laid = [...sequence.lanes.music, ...sequence.lanes.voice].map(clipEnd);
  // At least a second, so an empty cut still has a scale.
  const total = Math.max(frames, ...laid, fps);
  const frameWidth = () => (track.current?.getBoundingClientRect().width ?? 0) / total;
  const lengthOf = (seconds: number | null | undefined) =>
    seconds === null || seconds === undefined ? undefined : Math.floor(seconds * fps + 1e-6);
  const takeFrames = (shot: Shot) => lengthOf(view.videos[shot.take ?? ""]?.durationS);
  const soundFrames = (id: string) => lengthOf(view.sounds.find((s) => s.id === id)?.durationS);
  const nameOf = (id: string) => view.sounds.find((s) => s.id === id)?.name ?? id;

  const focusShot = (id: string) =>
    requestAnimationFrame(() =>
      strip.current?.querySelector<HTMLElement>(`[data-shot="${CSS.escape(id)}"]`)?.focus(),
    );
  const move = (shot: Shot, to: number) => {
    runNow(() => editor.move(shot.id, to));
    focusShot(shot.id);
  };
  // Alt+Left on the first shot and Alt+Right on the last are taken too: the browser would go
  // Back or Forward. Delete hands the focus to the next shot, so Ctrl+Z still reaches the editor.
  const onShotKey = (event: KeyboardEvent, shot: Shot, index: number) => {
    const step = event.altKey ? SHOT_STEPS[event.key] : undefined;
    if (step !== undefined) {
      const to = index + step;
      if (to >= 0 && to < shots.length) move(shot, to);
    } else if (event.key === "Delete") {
      const next = shots[index + 1] ?? shots[index - 1];
      runNow(() => editor.remove(shot.id));
      if (next) focusShot(next.id);
      else document.getElementById("sequence-heading")?.focus();
    } else return;
    event.preventDefault();
  };
  const onDrop = (event: DragEvent, index: number) => {
    const id = event.dataTransfer.getData("text/x-studio-shot");
    const shot = shots.find((s) => s.id === id);
    if (shot) move(shot, index);
  };
  const trim = (shot: Shot, inFrame: number, outFrame: number) =>
    runNow(() => editor.trim(shot.id, inFrame / fps, outFrame / fps));
  const change = (lane: Lane, index: number, fields: Record<string, number>) =>
    runNow(() => editor.changeClip(lane, index, fields));

  return (
    <section className="timeline" aria-label="Timeline">
      <div className="timeline-scroll">
        <div
          className="timeline-track"
          ref={track}
          style={{ "--seconds": total / fps } as CSSProperties}
        >
          {shots.length === 0 ? (
            <p className="muted">No shots yet: choose “Add to sequence” in a video’s menu.</p>
          ) : (
            <ol className="strip" ref={strip} aria-label="Shots">
              {shots.map((shot, index) => {
                const poster = view.videos[shot.take ?? ""]?.posterUrl;
                const length = shot.outFrame - shot.inFrame;
                return (
                  <li
                    key={shot.id}
                    style={{ width: percent(length, total) }}
                    onDragOver={(event) => event.preventDefault()}
                    onDrop={(event) => onDrop(event, index)}
                  >
                    <button
                      type="button"
                      draggable
                      data-shot={shot.id}
                      aria-pressed={shot.id === chosen}
                      aria-keyshortcuts="Alt+ArrowLeft Alt+ArrowRight Delete"
                      onDragStart={(event) =>
                        event.dataTransfer.setData("text/x-studio-shot", shot.id)
                      }
                      onClick={() => onChoose(shot.id === chosen ? null : shot.id)}
                      onKeyDown={(event) => onShotKey(event, shot, index)}
                    >
                      {poster ? (
                        <img src={poster} alt="" />
                      ) : (
                        <span className="no-poster">{shot.take === null ? shot.prompt : null}</span>
                      )}
                      <span className="shot-label">{shot.label}</span>
                      <span className="muted">
                        {shot.takeMissing ? "Take missing" : seconds(length, fps)}
                        {shot.take === null && shot.plannedFrames !== null
                          ? ` planned, ${shot.takes.length} takes`
                          : ""}
                      </span>
                      {shot.caption && <span className="shot-caption">{shot.caption.text}</span>}
                    </button>
                    {shot.take !== null && !shot.takeMissing && (
                      <>
                        <Grip
                          label={`In point of ${shot.label}`}
                          className="trim trim-in"
                          frame={shot.inFrame}
                          min={0}
                          max={shot.outFrame - 1}
                          fps={fps}
                          frameWidth={frameWidth}
                          onMove={(at) => trim(shot, at, shot.outFrame)}
                        />
                        <Grip
                          label={`Out point of ${shot.label}`}
                          className="trim trim-out"
                          frame={shot.outFrame}
                          min={shot.inFrame + 1}
                          max={takeFrames(shot) ?? shot.outFrame}
                          fps={fps}
                          frameWidth={frameWidth}
                          onMove={(at) => trim(shot, shot.inFrame, at)}
                        />
                      </>
                    )}
                    <ShotMaking jobs={view.making[shot.id]} />
                  </li>
                );
              })}
            </ol>
          )}
          {LANES.map(({ lane, name }) => (
            <div key={lane} className="timeline-lane" role="group" aria-label={`${name} track`}>
              <span className="lane-name" aria-hidden="true">
                {name}
              </span>
              {sequence.lanes[lane].map((clip, index) => {
                const what = `${name} clip ${index + 1}`;
                return (
                  <div
                    key={`${index}-${clip.sound}`}
                    className="timeline-clip"
                    style={{
                      left: percent(clip.start_frame, total),
                      width: percent(clip.out_frame - clip.in_frame, total),
                    }}
                  >
                    <Grip
                      label={`Start of ${what}`}
                      className="clip-body"
                      frame={clip.start_frame}
                      min={0}
                      max={Math.max(frames - 1, clip.start_frame)}
                      fps={fps}
                      frameWidth={frameWidth}
                      onMove={(at) => change(lane, index, { start_s: at / fps })}
                    >
                      {nameOf(clip.sound)}
                    </Grip>
                    <Grip
                      label={`In point of ${what}`}
                      className="trim trim-in"
                      frame={clip.in_frame}
                      min={Math.max(0, clip.in_frame - clip.start_frame)}
                      max={clip.out_frame - 1}
                      fps={fps}
                      frameWidth={frameWidth}
                      onMove={(at) =>
                        change(lane, index, {
                          in_s: at / fps,
                          start_s: (clip.start_frame + at - clip.in_frame) / fps,
                        })
                      }
                    />
                    <Grip
                      label={`Out point of ${what}`}
                      className="trim trim-out"
                      frame={clip.out_frame}
                      min={clip.in_frame + 1}
                      max={soundFrames(clip.sound) ?? clip.out_frame}
                      fps={fps}
                      frameWidth={frameWidth}
                      onMove={(at) => change(lane, index, { out_s: at / fps })}
                    />
                  </div>
                );
              })}
            </div>
          ))}
        </div>
      </div>
    </section>
  );
}
