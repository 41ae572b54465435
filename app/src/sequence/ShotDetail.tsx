// The chosen shot's fields: label, prompt, take, caption, sound, framing and its in and out
// points (a point the editor refuses is said on its field, and nothing is sent), then Continue
// and Remove shot. Each change is one of the sequence editor's edits.
import type { SequenceEditor } from "../../../pkg/studio_sequence.js";
import { run, runNow } from "../core/useStudio";
import { PointField } from "./PointField";
import { PromptField } from "./PromptField";
import { ShotFraming } from "./ShotFraming";
import { ShotSound } from "./ShotSound";
import type { PanelView, Shot } from "./types";

export type Refusal = { shot: string; which: "in" | "out"; message: string } | null;

/** Trims `shot` to `inS`..`outS`, said as a refusal of its `which` point when refused. */
export function trimmer(editor: SequenceEditor, onRefusal: (refusal: Refusal) => void) {
  return (shot: Shot, which: "in" | "out", inS: number, outS: number) => {
    try {
      editor.trim(shot.id, inS, outS);
      onRefusal(null);
    } catch (error) {
      onRefusal({ shot: shot.id, which, message: (error as Error).message });
    }
  };
}

type Props = {
  editor: SequenceEditor;
  view: PanelView;
  shot: Shot;
  fps: number;
  refusal: Refusal;
  onRefusal: (refusal: Refusal) => void;
};

export function ShotDetail({ editor, view, shot, fps, refusal, onRefusal }: Props) {
  const trim = trimmer(editor, onRefusal);
  const asset = (fileName: string | null) =>
    fileName === null ? undefined : view.videos[fileName];
  const refused = (which: "in" | "out") =>
    refusal?.shot === shot.id && refusal.which === which ? refusal.message : null;
  return (
    <fieldset className="shot-detail">
      <legend>{shot.label}</legend>
      <label>
        Label
        <input
          defaultValue={shot.label}
          key={`${shot.id}-${shot.label}`}
          onBlur={(event) =>
            event.target.value !== shot.label &&
            runNow(() => editor.label(shot.id, event.target.value))
          }
        />
      </label>
      <PromptField editor={editor} shot={shot} cast={view.cast} />
      <label>
        Take
        <select
          value={shot.take ?? ""}
          onChange={(event) => runNow(() => editor.choose(shot.id, event.target.value))}
        >
          {shot.takes.map((take) => (
            <option key={take} value={take}>
              {asset(take)?.title ?? take}
            </option>
          ))}
        </select>
      </label>
      <label>
        Caption
        <textarea
          rows={2}
          maxLength={500}
          defaultValue={shot.caption?.text ?? ""}
          key={`${shot.id}-caption-${shot.caption?.text ?? ""}`}
          placeholder="MARY: A line shown over the shot"
          onBlur={(event) =>
            event.target.value !== (shot.caption?.text ?? "") &&
            runNow(() => editor.caption(shot.id, event.target.value))
          }
        />
      </label>
      <ShotSound editor={editor} shot={shot} />
      <ShotFraming editor={editor} shot={shot} />
      <PointField
        label="In (s)"
        fps={fps}
        frame={shot.inFrame}
        max={shot.outFrame / fps}
        refusal={refused("in")}
        shotId={shot.id}
        onSet={(at) => trim(shot, "in", at, shot.outFrame / fps)}
      />
      <PointField
        label="Out (s)"
        fps={fps}
        frame={shot.outFrame}
        max={asset(shot.take)?.durationS ?? undefined}
        refusal={refused("out")}
        shotId={shot.id}
        onSet={(at) => trim(shot, "out", shot.inFrame / fps, at)}
      />
      <button
        type="button"
        disabled={shot.take === null}
        title="Make the next shot from this one's take"
        onClick={() => run(editor.continueShot(shot.id))}
      >
        Continue
      </button>
      <button type="button" onClick={() => runNow(() => editor.remove(shot.id))}>
        Remove shot
      </button>
    </fieldset>
  );
}
