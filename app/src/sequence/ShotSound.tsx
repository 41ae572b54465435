// A shot's own sound in the Sequence panel: its gain, and Mute (the sequence editor's edit).
import type { SequenceEditor } from "../../../pkg/studio_sequence.js";
import { runNow } from "../core/useStudio";
import type { Shot } from "./types";

export function ShotSound({ editor, shot }: { editor: SequenceEditor; shot: Shot }) {
  return (
    <>
      <label>
        Sound gain (dB)
        <input
          type="number"
          min={-60}
          max={12}
          step="any"
          key={`${shot.id}-gain-${shot.gainDb}`}
          defaultValue={shot.gainDb}
          onBlur={(event) => {
            const gain = Number(event.target.value);
            if (event.target.value !== "" && gain !== shot.gainDb)
              runNow(() => editor.shotSound(shot.id, gain, shot.mute));
          }}
        />
      </label>
      <label className="check">
        <input
          type="checkbox"
          checked={shot.mute}
          onChange={(event) =>
            runNow(() => editor.shotSound(shot.id, shot.gainDb, event.target.checked))
          }
        />
        Mute its sound
      </label>
    </>
  );
}
