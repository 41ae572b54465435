// A job's progress as a bar: 0 to 100, named for screen readers by `label`.
export function ProgressTrack({ label, percent }: { label: string; percent: number }) {
  return (
    <div
      className="progress-track"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
    >
      <div className="progress-fill" style={{ transform: `scaleX(${percent / 100})` }} />
    </div>
  );
}
