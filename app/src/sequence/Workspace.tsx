// The sequence editor's room: over the dashboard, filling the window, modal (the page behind is
// inert, Tab stays inside), closed by Escape or Close. Focus goes back to the Sequence button.
import { useEffect, useRef, type ReactNode } from "react";
import { useModal } from "../useModal";
import { closeEditor } from "./opener";

export function Workspace({ children }: { children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  useModal(box, true, closeEditor);
  useEffect(
    () => () => {
      if (!document.activeElement || document.activeElement === document.body)
        document.querySelector<HTMLElement>(".sequence-toggle")?.focus();
    },
    [],
  );
  return (
    <div
      ref={box}
      className="workspace"
      role="dialog"
      aria-modal="true"
      aria-labelledby="sequence-heading"
    >
      {children}
    </div>
  );
}
