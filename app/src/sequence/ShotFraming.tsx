// A shot's framing in the Sequence panel: where its crop window sits in its take when an export
// crops it to another shape, as percentages from the left and the top (the sequence editor's
// edit).
import type { SequenceEditor } from "../../../pkg/studio_sequence.js";
import { runNow } from "../core/useStudio";
import type { Shot } from "./types";

const CENTRE = { x: 0.5, y: 0.5 };

export function ShotFraming({ editor, shot }: { editor: SequenceEditor; shot: Shot }) {
  const point = shot.reframe ?? CENTRE;
  const field = (axis: "x" | "y", label: string) => (
    <label>
      {label}
      <input
        type="number"
        min={0}
        max={100}
        step="any"
        key={`${shot.id}-${axis}-${point[axis]}`}
        defaultValue={Math.round(point[axis] * 1000) / 10}
        onBlur={(event) => {
          const value = Number(event.target.value) / 100;
          if (event.target.value === "" || value === point[axis]) return;
          const next = { ...point, [axis]: value };
          runNow(() => editor.reframe(shot.id, next.x, next.y));
        }}
      />
    </label>
  );
  return (
    <>
      {field("x", "Framing across (%)")}
      {field("y", "Framing down (%)")}
      <button
        type="button"
        disabled={shot.reframe === null}
        onClick={() => runNow(() => editor.reframe(shot.id, CENTRE.x, CENTRE.y))}
      >
        Centre the framing
      </button>
    </>
  );
}
