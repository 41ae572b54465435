// A shot's prompt, with the cast's names offered as an `@` mention is typed: a combobox over
// the text (WAI-ARIA 1.2), whose list Arrow keys move through, Enter or Tab takes and Escape
// closes. Which names fit is the sequence editor's (`mentionAt`); the prompt is saved on blur.
import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import type { SequenceEditor } from "../../../pkg/studio_sequence.js";
import { run, runNow } from "../core/useStudio";
import type { CastMember, MentionOffer, Shot } from "./types";

export function PromptField({
  editor,
  shot,
  cast,
}: {
  editor: SequenceEditor;
  shot: Shot;
  cast: CastMember[];
}) {
  const field = useRef<HTMLTextAreaElement>(null);
  const [offer, setOffer] = useState<MentionOffer | null>(null);
  const [active, setActive] = useState(0);
  const listId = useId();

  const look = useCallback(() => {
    const text = field.current;
    if (!text) return;
    setOffer(editor.mentionAt(text.value, text.selectionStart));
    setActive(0);
  }, [editor]);
  // A cast read while a mention is being typed offers its names at once.
  useEffect(() => {
    if (cast.length > 0 && document.activeElement === field.current) look();
  }, [cast, look]);
  const take = (name: string) => {
    const text = field.current;
    if (!text || !offer || name === "") return;
    const caret = text.selectionStart;
    text.value = `${text.value.slice(0, offer.start)}@${name} ${text.value.slice(caret)}`;
    const after = offer.start + name.length + 2;
    text.setSelectionRange(after, after);
    setOffer(null);
  };
  const onKey = (event: KeyboardEvent) => {
    if (!offer) return;
    const count = offer.names.length;
    if (event.key === "ArrowDown") setActive((active + 1) % count);
    else if (event.key === "ArrowUp") setActive((active + count - 1) % count);
    else if (event.key === "Enter" || event.key === "Tab") take(offer.names[active] ?? "");
    else if (event.key === "Escape") setOffer(null);
    else return;
    event.preventDefault();
  };
  const option = (index: number) => `${listId}-${index}`;

  return (
    <label className="prompt-field">
      Prompt
      <textarea
        ref={field}
        rows={3}
        maxLength={4000}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={offer !== null}
        aria-controls={listId}
        aria-activedescendant={offer ? option(active) : undefined}
        defaultValue={shot.prompt ?? ""}
        key={`${shot.id}-prompt-${shot.prompt ?? ""}`}
        placeholder="What the shot's takes are made from; @Name brings a cast member's pictures"
        onFocus={() => cast.length > 0 || run(editor.loadCast())}
        onInput={look}
        onKeyDown={onKey}
        onBlur={(event) => {
          setOffer(null);
          if (event.target.value !== (shot.prompt ?? ""))
            runNow(() => editor.prompt(shot.id, event.target.value));
        }}
      />
      <ul id={listId} role="listbox" aria-label="Cast" className="mention-offer" hidden={!offer}>
        {offer?.names.map((name, index) => (
          <li
            key={name}
            id={option(index)}
            role="option"
            aria-selected={index === active}
            onMouseDown={(event) => {
              event.preventDefault();
              take(name);
            }}
          >
            @{name}
          </li>
        ))}
      </ul>
    </label>
  );
}
