// The Sequence button, and the Sequence panel loaded (with its own wasm) the first time it
// is opened.
import { lazyPanel } from "../LazyPanel";
import { setSequence, useSequence } from "./opener";

const SequencePanel = lazyPanel(() => import("./SequencePanel"), "Sequence panel");

export function SequenceButton() {
  const { open } = useSequence();
  return (
    <button
      type="button"
      className="sequence-toggle"
      aria-expanded={open}
      onClick={() => setSequence(!open)}
    >
      Sequence
    </button>
  );
}

export function Sequences({ projectId }: { projectId: string }) {
  if (!useSequence().open) return null;
  return <SequencePanel projectId={projectId} />;
}
