// An in or out point of a shot in the Sequence panel.
type PointProps = {
  label: string;
  fps: number;
  frame: number;
  max: number | undefined;
  refusal: string | null;
  shotId: string;
  onSet: (seconds: number) => void;
};

/** An in or out point in seconds: any time the frame rate makes is accepted (kept as the
 * nearest frame); one the editor refuses is said under the field. */
export function PointField({ label, fps, frame, max, refusal, shotId, onSet }: PointProps) {
  const id = `${shotId}-${label.startsWith("In") ? "in" : "out"}`;
  return (
    <label>
      {label}
      <input
        type="number"
        min={0}
        max={max}
        step="any"
        key={`${id}-${frame}`}
        defaultValue={(frame / fps).toFixed(3)}
        aria-invalid={refusal !== null}
        aria-describedby={refusal ? `${id}-refusal` : undefined}
        onBlur={(event) => onSet(Number(event.target.value))}
      />
      {refusal && (
        <span id={`${id}-refusal`} className="field-refusal" role="alert">
          {refusal}
        </span>
      )}
    </label>
  );
}
