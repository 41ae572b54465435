import { useEffect } from "react";
import { dismiss, useRefusal } from "./core/refusals";

/** Why the last command was refused, at the foot of the window where it is seen, and read out
 * politely; it goes after 8 s, or with its close button. */
export function RefusalNotice() {
  const refusal = useRefusal();
  useEffect(() => {
    if (!refusal) return;
    const timer = setTimeout(dismiss, 8000);
    return () => clearTimeout(timer);
  }, [refusal]);
  return (
    <div className="refusal" role="status" aria-label="Notice">
      {refusal && (
        <>
          <span>{refusal.text}</span>
          <button type="button" className="ghost" aria-label="Dismiss" onClick={dismiss}>
            ×
          </button>
        </>
      )}
    </div>
  );
}
