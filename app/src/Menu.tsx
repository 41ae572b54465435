import { useEffect, useRef, useState, type KeyboardEvent } from "react";

/** One entry of a menu: an action, a toggle (`checked`), a link to download, or a rule. */
export type MenuItem =
  | {
      label: string;
      onSelect: () => void;
      disabled?: boolean;
      /** A toggle: shown and announced as on or off. */
      checked?: boolean;
      danger?: boolean;
    }
  | { label: string; href: string; download: string }
  | "separator";

/** A "More" button and the menu it opens, as WAI-ARIA's menu button pattern has it: its first
 * item takes focus, arrow keys move, Enter or Space runs the item, Escape closes and gives
 * focus back to the button, and focus leaving it (Tab, a click elsewhere, another menu's
 * button: one menu is open at a time) closes it. */
export function Menu({ label, items }: { label: string; items: MenuItem[] }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const entries = () =>
    Array.from(list.current?.querySelectorAll<HTMLElement>('[role^="menuitem"]') ?? []).filter(
      (item) => item.getAttribute("aria-disabled") !== "true",
    );
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };

  useEffect(() => {
    if (open) entries()[0]?.focus();
  }, [open]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const all = entries();
    const at = all.indexOf(document.activeElement as HTMLElement);
    const move = (to: number) => all[(to + all.length) % all.length]?.focus();
    if (event.key === "ArrowDown") move(at + 1);
    else if (event.key === "ArrowUp") move(at - 1);
    else if (event.key === "Escape") close(true);
    else return;
    event.preventDefault();
    event.stopPropagation();
  };

  return (
    // Focus leaving the menu (Tab, a click elsewhere, another menu's button) closes it.
    <div
      className="menu"
      onBlur={(event) => !event.currentTarget.contains(event.relatedTarget) && setOpen(false)}
    >
      <button
        ref={button}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={label}
        onClick={() => setOpen(!open)}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown" && !open) {
            event.preventDefault();
            setOpen(true);
          }
        }}
      >
        More
      </button>
      {open && (
        <div ref={list} role="menu" aria-label={label} className="menu-list" onKeyDown={onKeyDown}>
          {items.map((item, i) => {
            if (item === "separator") return <hr key={`rule-${i}`} role="separator" />;
            if ("href" in item) {
              return (
                <a
                  key={item.label}
                  role="menuitem"
                  tabIndex={-1}
                  href={item.href}
                  download={item.download}
                  onClick={() => setOpen(false)}
                >
                  {item.label}
                </a>
              );
            }
            const toggle = item.checked !== undefined;
            return (
              <button
                key={item.label}
                type="button"
                role={toggle ? "menuitemcheckbox" : "menuitem"}
                aria-checked={toggle ? item.checked : undefined}
                aria-disabled={item.disabled || undefined}
                tabIndex={-1}
                className={item.danger ? "danger" : undefined}
                onClick={() => {
                  if (item.disabled) return;
                  close(true);
                  item.onSelect();
                }}
              >
                {item.label}
              </button>
            );
          })}
        </div>
      )}
    </div>
  );
}
