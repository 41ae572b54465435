// The Sequence panel: the open sequence's shots in order as a strip (reordered by dragging or
// Alt+Left/Right), the chosen shot's label, take, caption and in and out points, undo and redo
// (Ctrl+Z, Ctrl+Shift+Z), the player, the sound lanes under the shots (`SoundLanes`), the
// loudness the cut's sound is brought to, and the MP4
// export at the sequence's size or another. Every edit is the sequence editor's (its own wasm);
// this only renders its view and calls its commands.
import { useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from "react";
import { run, runNow } from "../core/useStudio";
import { ExportControls } from "./ExportControls";
import { setSequence, useSequence } from "./opener";
import { usePreviewSound } from "./previewSound";
import { SequencePlayer, type Clip } from "./SequencePlayer";
import { PointField } from "./PointField";
import { PromptField } from "./PromptField";
import { ShotMaking } from "./ShotMaking";
import { ShotFraming } from "./ShotFraming";
import { ShotSound } from "./ShotSound";
import { SoundLanes } from "./SoundLanes";
import { Storyboard } from "./Storyboard";
import type { Shot } from "./types";
import { usePanelView, useSequenceEditor } from "./useSequenceEditor";
import "./sequence.css";

function seconds(frames: number, fps: number): string {
  return `${(frames / fps).toFixed(2)} s`;
}

/** Where Alt+Left and Alt+Right move a shot in the strip. */
const SHOT_STEPS: Partial<Record<string, number>> = { ArrowLeft: -1, ArrowRight: 1 };

export default function SequencePanel({ projectId }: { projectId: string }) {
  const editor = useSequenceEditor(projectId);
  const view = usePanelView(editor);
  const { adds } = useSequence();
  const [chosen, setChosen] = useState<string | null>(null);
  // The export's size ("" for the sequence's own): the player shows what it keeps of a take.
  const [exportSize, setExportSize] = useState("");
  const sound = usePreviewSound(editor);
  const [refusal, setRefusal] = useState<{
    shot: string;
    which: "in" | "out";
    message: string;
  } | null>(null);
  const strip = useRef<HTMLOListElement>(null);
  const opened = view?.editor ?? null;

  // Videos asked to be added before the sequence was open are added once it is.
  useEffect(() => {
    if (!editor || !opened || adds.length === 0) return;
    setSequence(true, []);
    for (const add of adds) editor.addShot(add.video);
  }, [editor, opened, adds]);

  const heading = useRef<HTMLHeadingElement>(null);
  // Opened by its button, the panel takes the focus (a screen reader reads it); opened by
  // Add to sequence, the focus stays in the library, where more may be added. Closed, the
  // focus goes back to the Sequence button.
  const byButton = useRef(adds.length === 0);
  const shown = view !== null;
  useEffect(() => {
    if (shown && byButton.current) heading.current?.focus();
  }, [shown]);
  // Edits kept aside after a refused save (409) are not saved anywhere: opening another
  // sequence, making one, closing the panel or leaving the page asks before they are dropped.
  const keptAside = opened?.keptAside ?? 0;
  const unsaved = keptAside > 0 || opened?.unsaved === true;
  useEffect(() => {
    if (!unsaved) return;
    const ask = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", ask);
    return () => window.removeEventListener("beforeunload", ask);
  }, [unsaved]);
  const dropsKept = () =>
    keptAside === 0 ||
    window.confirm(
      `${keptAside} ${keptAside === 1 ? "edit is" : "edits are"} kept aside and not saved. Drop ${keptAside === 1 ? "it" : "them"}?`,
    );
  const close = () => {
    if (!dropsKept()) return;
    setSequence(false);
    document.querySelector<HTMLElement>(".sequence-toggle")?.focus();
  };

  if (!editor || !view) return <p aria-busy="true">Loading the sequence...</p>;
  const sequence = opened?.sequence;
  const shots = sequence?.shots ?? [];
  const fps = sequence?.fps ?? 24;
  const asset = (fileName: string | null) =>
    fileName === null ? undefined : view.videos[fileName];
  const clips: Clip[] = shots.map((shot) => ({
    id: shot.id,
    label: shot.label,
    url: shot.takeMissing ? null : (asset(shot.take)?.url ?? null),
    slate: shot.take === null ? "No take yet" : "Take missing",
    inS: shot.inFrame / fps,
    outS: shot.outFrame / fps,
    caption: shot.caption && {
      text: shot.caption.text,
      startS: (shot.caption.inFrame ?? shot.inFrame) / fps,
      endS: (shot.caption.outFrame ?? shot.outFrame) / fps,
    },
  }));
  const selected = shots.find((s) => s.id === chosen) ?? null;

  const focusShot = (id: string) =>
    requestAnimationFrame(() =>
      strip.current?.querySelector<HTMLElement>(`[data-shot="${CSS.escape(id)}"]`)?.focus(),
    );
  const move = (shot: Shot, to: number) => {
    runNow(() => editor.move(shot.id, to));
    focusShot(shot.id);
  };
  // Alt+Left on the first shot and Alt+Right on the last are taken too: the browser would go
  // Back or Forward. Delete hands the focus to the next shot, so Ctrl+Z still reaches the panel.
  const onShotKey = (event: KeyboardEvent, shot: Shot, index: number) => {
    const step = event.altKey ? SHOT_STEPS[event.key] : undefined;
    if (step !== undefined) {
      const to = index + step;
      if (to >= 0 && to < shots.length) move(shot, to);
    } else if (event.key === "Delete") {
      const next = shots[index + 1] ?? shots[index - 1];
      runNow(() => editor.remove(shot.id));
      if (next) focusShot(next.id);
      else heading.current?.focus();
    } else return;
    event.preventDefault();
  };
  const onPanelKey = (event: KeyboardEvent) => {
    if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== "z") return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement)
      return;
    event.preventDefault();
    if (event.shiftKey) editor.redo();
    else editor.undo();
  };
  const onDrop = (event: DragEvent, index: number) => {
    const id = event.dataTransfer.getData("text/x-studio-shot");
    const shot = shots.find((s) => s.id === id);
    if (shot) move(shot, index);
  };
  // A point the editor refuses (an Out past the take's end, In at or after Out) is said on
  // its field, and nothing is sent.
  const trim = (shot: Shot, which: "in" | "out", inS: number, outS: number) => {
    try {
      editor.trim(shot.id, inS, outS);
      setRefusal(null);
    } catch (error) {
      setRefusal({ shot: shot.id, which, message: (error as Error).message });
    }
  };
  const point = (id: string, which: "in" | "out", at: number) => {
    const shot = shots.find((s) => s.id === id);
    if (!shot) return;
    if (which === "in") trim(shot, "in", at, shot.outFrame / fps);
    else trim(shot, "out", shot.inFrame / fps, at);
  };
  const refused = (shot: Shot, which: "in" | "out") =>
    refusal?.shot === shot.id && refusal.which === which ? refusal.message : null;
  const takeLength = (shot: Shot) => asset(shot.take)?.durationS ?? undefined;

  return (
    <section
      className="panel sequence-panel"
      aria-labelledby="sequence-heading"
      onKeyDown={onPanelKey}
    >
      <h2 id="sequence-heading" ref={heading} tabIndex={-1}>
        Sequence{sequence ? `: ${sequence.name}` : ""}
      </h2>
      <div className="sequence-actions">
        {view.sequences.length > 0 && (
          <label>
            Open
            <select
              value={sequence?.id ?? ""}
              onChange={(event) => dropsKept() && run(editor.open(event.target.value))}
            >
              {!sequence && (
                <option value="" disabled>
                  Choose a sequence
                </option>
              )}
              {view.sequences.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <button type="button" onClick={() => dropsKept() && run(editor.newSequence())}>
          New sequence
        </button>
        <button type="button" disabled={!opened?.canUndo} onClick={() => editor.undo()}>
          Undo
        </button>
        <button type="button" disabled={!opened?.canRedo} onClick={() => editor.redo()}>
          Redo
        </button>
        <label>
          Loudness
          <select
            value={sequence?.loudness ?? "off"}
            disabled={!sequence}
            onChange={(event) => runNow(() => editor.loudness(event.target.value))}
          >
            <option value="web">Web (-14 LUFS)</option>
            <option value="broadcast">Broadcast (EBU R 128, -23 LUFS)</option>
            <option value="off">Off (the takes as they are)</option>
          </select>
        </label>
        <ExportControls
          editor={editor}
          sequence={sequence}
          size={exportSize}
          onSize={setExportSize}
        />
        <button type="button" onClick={close}>
          Close
        </button>
        <span className="muted" data-testid="sequence-status">
          {opened
            ? `${shots.length} ${shots.length === 1 ? "shot" : "shots"}, ${seconds(opened.frames, fps)}`
            : ""}
          {keptAside > 0
            ? ` · ${keptAside} ${keptAside === 1 ? "edit" : "edits"} kept aside`
            : view.saving
              ? " · Saving..."
              : opened?.unsaved
                ? " · Not saved"
                : opened
                  ? " · Saved"
                  : ""}
        </span>
      </div>
      <Storyboard editor={editor} view={view} />
      {view.error !== null && (
        <div className="sequence-error" role="alert">
          <p>{view.error}</p>
        </div>
      )}
      {keptAside > 0 && (
        <div className="sequence-error" role="group" aria-label="Edits kept aside">
          <p>
            {keptAside} {keptAside === 1 ? "edit is" : "edits are"} kept aside: the sequence was
            changed elsewhere first.
          </p>
          <button type="button" onClick={() => editor.applyAgain()}>
            Apply my edits again
          </button>
          <button type="button" onClick={() => editor.letGo()}>
            Let my edits go
          </button>
        </div>
      )}
      {view.removed !== null && (
        <div className="sequence-error" role="group" aria-label="Sequence removed elsewhere">
          <p>“{view.removed}” was removed elsewhere. Your edits are still here.</p>
          <button type="button" onClick={() => run(editor.keepRemoved())}>
            Keep my edits as a new sequence
          </button>
          <button type="button" onClick={() => editor.dismissRemoved()}>
            Let them go
          </button>
        </div>
      )}
      <p className="visually-hidden" aria-live="polite" data-testid="sequence-announcement">
        {view.announcement}
      </p>
      {view.notice !== null && (
        <p className="muted" role="status">
          {view.notice}
        </p>
      )}
      {shots.length === 0 ? (
        <p className="muted">No shots yet: choose “Add to sequence” in a video’s menu.</p>
      ) : (
        <ol className="strip" ref={strip} aria-label="Shots">
          {shots.map((shot, index) => {
            const poster = asset(shot.take)?.posterUrl;
            return (
              <li
                key={shot.id}
                draggable
                onDragStart={(event) => event.dataTransfer.setData("text/x-studio-shot", shot.id)}
                onDragOver={(event) => event.preventDefault()}
                onDrop={(event) => onDrop(event, index)}
              >
                <button
                  type="button"
                  data-shot={shot.id}
                  aria-pressed={shot.id === chosen}
                  aria-keyshortcuts="Alt+ArrowLeft Alt+ArrowRight Delete"
                  onClick={() => setChosen(shot.id === chosen ? null : shot.id)}
                  onKeyDown={(event) => onShotKey(event, shot, index)}
                >
                  {poster ? (
                    <img src={poster} alt="" />
                  ) : (
                    <span className="no-poster">{shot.take === null ? shot.prompt : null}</span>
                  )}
                  <span className="shot-label">{shot.label}</span>
                  <span className="muted">
                    {shot.takeMissing ? "Take missing" : seconds(shot.outFrame - shot.inFrame, fps)}
                    {shot.take === null && shot.plannedFrames !== null
                      ? ` planned, ${shot.takes.length} takes`
                      : ""}
                  </span>
                  {shot.caption && <span className="shot-caption">{shot.caption.text}</span>}
                </button>
                <ShotMaking jobs={view.making[shot.id]} />
              </li>
            );
          })}
        </ol>
      )}
      {selected && (
        <fieldset className="shot-detail">
          <legend>{selected.label}</legend>
          <label>
            Label
            <input
              defaultValue={selected.label}
              key={`${selected.id}-${selected.label}`}
              onBlur={(event) =>
                event.target.value !== selected.label &&
                runNow(() => editor.label(selected.id, event.target.value))
              }
            />
          </label>
          <PromptField editor={editor} shot={selected} cast={view.cast} />
          <label>
            Take
            <select
              value={selected.take ?? ""}
              onChange={(event) => runNow(() => editor.choose(selected.id, event.target.value))}
            >
              {selected.takes.map((take) => (
                <option key={take} value={take}>
                  {asset(take)?.title ?? take}
                </option>
              ))}
            </select>
          </label>
          <label>
            Caption
            <textarea
              rows={2}
              maxLength={500}
              defaultValue={selected.caption?.text ?? ""}
              key={`${selected.id}-caption-${selected.caption?.text ?? ""}`}
              placeholder="MARY: A line shown over the shot"
              onBlur={(event) =>
                event.target.value !== (selected.caption?.text ?? "") &&
                runNow(() => editor.caption(selected.id, event.target.value))
              }
            />
          </label>
          <ShotSound editor={editor} shot={selected} />
          <ShotFraming editor={editor} shot={selected} />
          <PointField
            label="In (s)"
            fps={fps}
            frame={selected.inFrame}
            max={selected.outFrame / fps}
            refusal={refused(selected, "in")}
            shotId={selected.id}
            onSet={(at) => trim(selected, "in", at, selected.outFrame / fps)}
          />
          <PointField
            label="Out (s)"
            fps={fps}
            frame={selected.outFrame}
            max={takeLength(selected)}
            refusal={refused(selected, "out")}
            shotId={selected.id}
            onSet={(at) => trim(selected, "out", selected.inFrame / fps, at)}
          />
          <button
            type="button"
            disabled={selected.take === null}
            title="Make the next shot from this one's take"
            onClick={() => run(editor.continueShot(selected.id))}
          >
            Continue
          </button>
          <button type="button" onClick={() => runNow(() => editor.remove(selected.id))}>
            Remove shot
          </button>
        </fieldset>
      )}
      {sequence && <SoundLanes editor={editor} view={view} sequence={sequence} />}
      <SequencePlayer
        clips={clips}
        fps={fps}
        onPoint={point}
        cropWindow={(id, width, height) =>
          editor.cropWindow(id, width, height, exportSize || undefined)
        }
        sound={sound}
      />
    </section>
  );
}
