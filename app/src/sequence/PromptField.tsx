// A shot's prompt, with the cast's names offered as an `@` mention is typed (the sequence
// editor's `mentionAt`, through the shared mention combobox); the prompt is saved on blur.
import { useEffect, useRef } from "react";
import type { SequenceEditor } from "../../../pkg/studio_sequence.js";
import { run, runNow } from "../core/useStudio";
import { useMentions } from "../mention/useMentions";
import type { CastMember, Shot } from "./types";

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
  const mentions = useMentions(
    field,
    (text, caret) => editor.mentionAt(text, caret),
    (box, text, caret) => {
      box.value = text;
      box.setSelectionRange(caret, caret);
    },
  );
  const { look } = mentions;
  // A cast read while a mention is being typed offers its names at once.
  useEffect(() => {
    if (cast.length > 0 && field.current && document.activeElement === field.current)
      look(field.current);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [cast]);

  return (
    <label className="prompt-field mention-box">
      Prompt
      <textarea
        ref={field}
        rows={3}
        maxLength={4000}
        {...mentions.boxProps}
        defaultValue={shot.prompt ?? ""}
        key={`${shot.id}-prompt-${shot.prompt ?? ""}`}
        placeholder="What the shot's takes are made from; @Name brings a cast member's pictures"
        onFocus={() => cast.length > 0 || run(editor.loadCast())}
        onInput={(event) => look(event.currentTarget)}
        onKeyDown={mentions.onKeyDown}
        onBlur={(event) => {
          mentions.close();
          if (event.target.value !== (shot.prompt ?? ""))
            runNow(() => editor.prompt(shot.id, event.target.value));
        }}
      />
      {mentions.list}
    </label>
  );
}
