import { useEffect, useRef, type RefObject } from "react";

/** What can take focus inside a dialog. */
const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** A modal dialog as people expect one, while `open`: focus moves in (to `first`, else its
 * first control), Tab and Shift+Tab go round inside it, the page behind is inert (everything
 * beside the dialog's overlay and its ancestors), Escape closes it, and focus goes back to
 * what opened it. */
export function useModal(
  dialog: RefObject<HTMLElement | null>,
  open: boolean,
  onClose: () => void,
  first?: RefObject<HTMLElement | null>,
) {
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  });
  useEffect(() => {
    const box = dialog.current;
    if (!open || !box) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const behind: Element[] = [];
    for (let node = box.closest(".overlay") ?? box; node.parentElement; node = node.parentElement) {
      for (const sibling of Array.from(node.parentElement.children)) {
        // The refusal notice stays live above every dialog: it says why a command in it failed.
        if (sibling !== node && !sibling.hasAttribute("inert") && !sibling.matches(".refusal")) {
          sibling.setAttribute("inert", "");
          behind.push(sibling);
        }
      }
    }
    (first?.current ?? box.querySelector<HTMLElement>(FOCUSABLE))?.focus();
    const onKey = (event: KeyboardEvent) => {
      // An Escape a control inside took (a list of suggestions closing) is not the dialog's.
      if (event.key === "Escape") {
        if (!event.defaultPrevented) close.current();
        return;
      }
      if (event.key !== "Tab") return;
      const inside = Array.from(box.querySelectorAll<HTMLElement>(FOCUSABLE));
      const head = inside[0];
      const tail = inside[inside.length - 1];
      if (!head || !tail) return;
      const at = document.activeElement;
      const outside = !box.contains(at);
      if (event.shiftKey && (at === head || outside)) {
        event.preventDefault();
        tail.focus();
      } else if (!event.shiftKey && (at === tail || outside)) {
        event.preventDefault();
        head.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("keydown", onKey);
      for (const element of behind) element.removeAttribute("inert");
      opener?.focus();
    };
  }, [dialog, open, first]);
}
