// The `@` mentions of a prompt box: as a mention is typed, the cast's names that fit are
// offered in a listbox the box controls (a WAI-ARIA 1.2 combobox). Arrow keys move through
// the names, Enter or Tab takes one, Escape closes the list. Which names fit is the core's
// (`offerAt`); `put` writes the text with the name taken and where the caret goes.
import { useId, useState, type KeyboardEvent, type RefObject } from "react";
import type { MentionOffer } from "../core/types";
import "./mention.css";

type Box = HTMLTextAreaElement;

export function useMentions(
  box: RefObject<Box | null>,
  offerAt: (text: string, caret: number) => MentionOffer | null,
  put: (box: Box, text: string, caret: number) => void,
) {
  const [offer, setOffer] = useState<MentionOffer | null>(null);
  const [active, setActive] = useState(0);
  const listId = useId();
  const option = (index: number) => `${listId}-${index}`;

  const look = (box: Box) => {
    setOffer(offerAt(box.value, box.selectionStart));
    setActive(0);
  };
  const take = (box: Box, name: string) => {
    if (!offer || name === "") return;
    const text = `${box.value.slice(0, offer.start)}@${name} ${box.value.slice(box.selectionStart)}`;
    put(box, text, offer.start + name.length + 2);
    setOffer(null);
  };
  /** Whether the key was the list's (and so nothing else should act on it). */
  const onKeyDown = (event: KeyboardEvent<Box>): boolean => {
    if (!offer) return false;
    const count = offer.names.length;
    if (event.key === "ArrowDown") setActive((active + 1) % count);
    else if (event.key === "ArrowUp") setActive((active + count - 1) % count);
    else if (event.key === "Enter" || event.key === "Tab")
      take(event.currentTarget, offer.names[active] ?? "");
    else if (event.key === "Escape") setOffer(null);
    else return false;
    event.preventDefault();
    return true;
  };

  const boxProps = {
    role: "combobox",
    "aria-autocomplete": "list",
    "aria-expanded": offer !== null,
    "aria-controls": listId,
    "aria-activedescendant": offer ? option(active) : undefined,
  } as const;
  const list = (
    <ul id={listId} role="listbox" aria-label="Cast" className="mention-offer" hidden={!offer}>
      {offer?.names.map((name, index) => (
        <li
          key={name}
          id={option(index)}
          role="option"
          aria-selected={index === active}
          onMouseDown={(event) => {
            event.preventDefault();
            if (box.current) take(box.current, name);
          }}
        >
          @{name}
        </li>
      ))}
    </ul>
  );
  return { boxProps, look, onKeyDown, list, close: () => setOffer(null) };
}
