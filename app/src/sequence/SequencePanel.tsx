// The sequence editor, over the dashboard and filling the window (`Workspace`): the open
// sequence's name and actions (open another, new, undo and redo with Ctrl+Z and Ctrl+Shift+Z,
// loudness, export, Close), the player on top, the timeline below it (shots and sound lanes,
// `Timeline`), then the chosen shot's fields, the sound lanes' fields and the storyboard.
// Every edit is the sequence editor's (its own wasm); this only renders its view and calls its
// commands.
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { run, runNow } from "../core/useStudio";
import { ExportControls } from "./ExportControls";
import { closeEditor, guardClose, showCut, takeAdds, useAdds } from "./opener";
import { usePreviewSound } from "./previewSound";
import { SequencePlayer, type Clip } from "./SequencePlayer";
import { ShotDetail, trimmer, type Refusal } from "./ShotDetail";
import { SoundLanes } from "./SoundLanes";
import { Storyboard } from "./Storyboard";
import { seconds, Timeline } from "./Timeline";
import { usePanelView, useSequenceEditor } from "./useSequenceEditor";
import { Workspace } from "./Workspace";
import "./sequence.css";

/** The editor of `projectId`'s sequences, opened on `cut` (its id; "" for the newest). */
export default function SequencePanel({ projectId, cut }: { projectId: string; cut: string }) {
  return (
    <Workspace>
      <Editor projectId={projectId} cut={cut} />
    </Workspace>
  );
}

function Editor({ projectId, cut }: { projectId: string; cut: string }) {
  const editor = useSequenceEditor(projectId, cut);
  const view = usePanelView(editor);
  const adds = useAdds();
  const [chosen, setChosen] = useState<string | null>(null);
  // The export's size ("" for the sequence's own): the player shows what it keeps of a take.
  const [exportSize, setExportSize] = useState("");
  const sound = usePreviewSound(editor);
  const [refusal, setRefusal] = useState<Refusal>(null);
  const opened = view?.editor ?? null;

  // Videos asked to be added before the sequence was open are added once it is.
  useEffect(() => {
    if (!editor || !opened || adds.length === 0) return;
    for (const add of takeAdds()) editor.addShot(add.video);
  }, [editor, opened, adds]);

  // The address names the sequence open, so a link or a reload opens it again.
  const openId = opened?.sequence.id;
  useEffect(() => {
    if (openId) showCut(openId);
  }, [openId]);

  // Shown, the editor takes the focus (a screen reader reads its name).
  const heading = useRef<HTMLHeadingElement>(null);
  const shown = view !== null;
  useEffect(() => {
    if (shown) heading.current?.focus();
  }, [shown]);
  // Edits kept aside after a refused save (409) are not saved anywhere: opening another
  // sequence, making one, closing the editor or leaving the page asks before they are dropped.
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
  useEffect(() => {
    guardClose(dropsKept);
    return () => guardClose(null);
  });

  if (!editor || !view)
    return (
      <section className="panel sequence-panel" aria-labelledby="sequence-heading">
        <h2 id="sequence-heading">Sequence</h2>
        <p aria-busy="true">Loading the sequence...</p>
      </section>
    );
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
  const trim = trimmer(editor, setRefusal);
  const point = (id: string, which: "in" | "out", at: number) => {
    const shot = shots.find((s) => s.id === id);
    if (!shot) return;
    if (which === "in") trim(shot, "in", at, shot.outFrame / fps);
    else trim(shot, "out", shot.inFrame / fps, at);
  };

  const onPanelKey = (event: KeyboardEvent) => {
    if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== "z") return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement)
      return;
    event.preventDefault();
    if (event.shiftKey) editor.redo();
    else editor.undo();
  };
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
        <button type="button" onClick={closeEditor}>
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
      <SequencePlayer
        clips={clips}
        fps={fps}
        onPoint={point}
        cropWindow={(id, width, height) =>
          editor.cropWindow(id, width, height, exportSize || undefined)
        }
        sound={sound}
      />
      {sequence && opened && (
        <Timeline
          editor={editor}
          view={view}
          sequence={sequence}
          frames={opened.frames}
          chosen={chosen}
          onChoose={setChosen}
        />
      )}
      {selected && (
        <ShotDetail
          editor={editor}
          view={view}
          shot={selected}
          fps={fps}
          refusal={refusal}
          onRefusal={setRefusal}
        />
      )}
      {sequence && <SoundLanes editor={editor} view={view} sequence={sequence} />}
      <Storyboard editor={editor} view={view} />
    </section>
  );
}
