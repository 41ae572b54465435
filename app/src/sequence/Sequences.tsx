// The Sequence button, and the sequence editor over the dashboard (loaded, with its own wasm,
// the first time it opens) while the address has `?cut=`.
import { lazyPanel } from "../LazyPanel";
import { closeEditor, openEditor, useCut } from "./opener";

const SequencePanel = lazyPanel(() => import("./SequencePanel"), "Sequence panel");

export function SequenceButton() {
  const open = useCut() !== null;
  return (
    <button
      type="button"
      className="sequence-toggle"
      aria-expanded={open}
      onClick={open ? closeEditor : openEditor}
    >
      Sequence
    </button>
  );
}

export function Sequences({ projectId }: { projectId: string }) {
  const cut = useCut();
  if (cut === null) return null;
  return <SequencePanel projectId={projectId} cut={cut} />;
}
