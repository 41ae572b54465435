// The cut's sound beside its shots': the project's sounds (uploaded here), laid on the music
// or voice lane, each clip's place, points, gain and fades, and how far the music drops under
// a voice. Every change is the sequence editor's edit (undone and saved like any); this only
// renders its view and calls its commands.
import { useEffect, useState, type ChangeEvent } from "react";
import type { SequenceEditor } from "../../../pkg/studio_sequence.js";
import { run, runNow } from "../core/useStudio";
import type { Lane, LaneClip, PanelView, Sequence } from "./types";

const LANES: { lane: Lane; name: string }[] = [
  { lane: "music", name: "Music" },
  { lane: "voice", name: "Voice" },
];

/** A clip's fields: what each is called, what it changes, and where its value comes from. */
const CLIP_FIELDS: {
  label: string;
  field: string;
  value: (clip: LaneClip, fps: number) => number;
  min: number;
  max?: number;
}[] = [
  { label: "Start (s)", field: "start_s", value: (c, fps) => c.start_frame / fps, min: 0 },
  { label: "In (s)", field: "in_s", value: (c, fps) => c.in_frame / fps, min: 0 },
  { label: "Out (s)", field: "out_s", value: (c, fps) => c.out_frame / fps, min: 0 },
  { label: "Gain (dB)", field: "gain_db", value: (c) => c.gain_db, min: -60, max: 12 },
  { label: "Fade in (s)", field: "fade_in_s", value: (c) => c.fade_in_s, min: 0, max: 10 },
  { label: "Fade out (s)", field: "fade_out_s", value: (c) => c.fade_out_s, min: 0, max: 10 },
];

/** A number of a clip or of the cut, set when the field is left with another value. */
function NumberField({
  label,
  value,
  min,
  max,
  onSet,
}: {
  label: string;
  value: number;
  min: number;
  max?: number | undefined;
  onSet: (value: number) => void;
}) {
  const shown = Number(value.toFixed(3));
  return (
    <label>
      {label}
      <input
        type="number"
        min={min}
        max={max}
        step="any"
        key={`${label}-${shown}`}
        defaultValue={shown}
        onBlur={(event) => {
          const given = Number(event.target.value);
          if (event.target.value !== "" && given !== shown) onSet(given);
        }}
      />
    </label>
  );
}

/** One clip of a lane: its sound's name, then its fields and Remove. */
function ClipRow({
  editor,
  lane,
  index,
  clip,
  name,
  fps,
}: {
  editor: SequenceEditor;
  lane: Lane;
  index: number;
  clip: LaneClip;
  name: string;
  fps: number;
}) {
  const change = (field: string) => (value: number) =>
    runNow(() => editor.changeClip(lane, index, { [field]: value }));
  return (
    <li>
      <fieldset className="lane-clip">
        <legend>
          {lane === "music" ? "Music" : "Voice"} clip {index + 1}: {name}
        </legend>
        {CLIP_FIELDS.map(({ label, field, value, min, max }) => (
          <NumberField
            key={field}
            label={label}
            value={value(clip, fps)}
            min={min}
            max={max}
            onSet={change(field)}
          />
        ))}
        <button type="button" onClick={() => runNow(() => editor.removeClip(lane, index))}>
          Remove
        </button>
      </fieldset>
    </li>
  );
}

export function SoundLanes({
  editor,
  view,
  sequence,
}: {
  editor: SequenceEditor;
  view: PanelView;
  sequence: Sequence;
}) {
  const [chosen, setChosen] = useState("");
  useEffect(() => run(editor.loadSounds()), [editor]);
  const sounds = view.sounds;
  const sound = chosen || sounds[0]?.id || "";
  const nameOf = (id: string) => sounds.find((s) => s.id === id)?.name ?? id;
  const upload = (event: ChangeEvent<HTMLInputElement>) => {
    const input = event.currentTarget;
    const file = input.files?.[0];
    if (!file) return;
    run(
      editor.uploadSound(file, file.name).then((id: string) => {
        setChosen(id);
        input.value = "";
      }),
    );
  };
  return (
    <section className="sound-lanes" aria-labelledby="sound-heading">
      <h3 id="sound-heading">Sound</h3>
      <div className="sound-actions">
        <label>
          Upload sound
          <input
            type="file"
            accept="audio/*,.wav,.flac,.mp3,.m4a,.aac,.ogg,.opus"
            onChange={upload}
          />
        </label>
        {sounds.length > 0 && (
          <>
            <label>
              Sound
              <select value={sound} onChange={(event) => setChosen(event.target.value)}>
                {sounds.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name} ({s.durationS.toFixed(1)} s)
                  </option>
                ))}
              </select>
            </label>
            {LANES.map(({ lane, name }) => (
              <button
                key={lane}
                type="button"
                onClick={() => runNow(() => editor.addSound(lane, sound))}
              >
                Add to {name.toLowerCase()}
              </button>
            ))}
          </>
        )}
        <NumberField
          label="Music under voice (dB down)"
          value={sequence.duckDb}
          min={0}
          max={60}
          onSet={(value) => runNow(() => editor.duck(value))}
        />
      </div>
      {LANES.map(({ lane, name }) => {
        const clips = sequence.lanes[lane];
        return (
          <div key={lane} className="lane" role="group" aria-label={`${name} lane`}>
            <h4>{name}</h4>
            {clips.length === 0 ? (
              <p className="muted">No {lane} yet.</p>
            ) : (
              <ol>
                {clips.map((clip, index) => (
                  <ClipRow
                    key={`${index}-${clip.sound}`}
                    editor={editor}
                    lane={lane}
                    index={index}
                    clip={clip}
                    name={nameOf(clip.sound)}
                    fps={sequence.fps}
                  />
                ))}
              </ol>
            )}
          </div>
        );
      })}
    </section>
  );
}
