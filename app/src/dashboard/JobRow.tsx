import { useRef } from "react";
import type { JobView } from "../core/types";
import { run, runNow, useStudio } from "../core/useStudio";
import { Menu, type MenuItem } from "../Menu";
import { ProgressTrack } from "../ProgressTrack";
import { addToSequence } from "../sequence/opener";
import { useShotItems } from "../shot/shotItems";

type Props = {
  job: JobView;
  /** The windowed list's ref, which measures the row. */
  measure: (row: HTMLElement | null) => (() => void) | undefined;
  /** The row's place in the whole list, for screen readers (most rows are not in the DOM). */
  position: number;
  of: number;
  /** Whether the row above is a take of the same shot: the two are drawn as one group. */
  sameShot: boolean;
  /** Whether the job is chosen for Compare. */
  compared: boolean;
};

export function JobRow({ job, measure, position, of, sameShot, compared }: Props) {
  const studio = useStudio();
  const busy = job.busy !== null;
  const promptId = `prompt-${job.id}`;
  const player = useRef<HTMLVideoElement>(null);
  const shot = useShotItems(job.id, player);
  const more: MenuItem[] = [
    ...(job.showPlayer ? shot.items : []),
    ...(job.showPlayer
      ? [
          {
            label: "Compare",
            onSelect: () => runNow(() => studio.toggleCompare(job.id)),
            checked: compared,
          },
          {
            label: "Add to sequence",
            onSelect: () =>
              job.savedAs !== null
                ? addToSequence({ video: job.savedAs })
                : run(studio.saveJob(job.id).then((key) => addToSequence({ video: key }))),
          },
        ]
      : []),
    ...(job.showPlayer ? ["separator" as const] : []),
    {
      label: "Remove",
      onSelect: () => run(studio.removeJob(job.id)),
      disabled: busy,
      danger: true,
    },
  ];
  return (
    <li
      className={`job${job.take ? " take" : ""}${sameShot ? " same-shot" : ""}`}
      data-job-id={job.id}
      data-shot={job.take?.shot}
      data-key={job.id}
      ref={measure}
      aria-posinset={position}
      aria-setsize={of}
    >
      <div className="job-head">
        <span className={`badge status-${job.status}`}>{job.badge}</span>
        {job.take && (
          <span className="take-label">
            Take {job.take.index} of {job.take.count}
          </span>
        )}
        <time className="muted">{job.createdLabel}</time>
      </div>
      <p className="job-prompt" id={promptId}>
        &ldquo;{job.prompt}&rdquo;
      </p>
      {job.showProgress && (
        <div className="progress">
          <div className="progress-text">
            <span>Generating video...</span>
            <span>{job.percent}%</span>
          </div>
          <ProgressTrack label="Generation progress" percent={job.percent} />
        </div>
      )}
      {job.error && <p className="job-error">{job.error}</p>}
      {job.showPlayer && job.previewUrl && (
        <video
          ref={player}
          className="player"
          controls
          preload="none"
          poster={job.posterUrl ?? undefined}
          src={job.previewUrl}
          onError={() => console.warn(`[studio] could not load video ${job.previewUrl}`)}
        />
      )}
      <div className="job-actions">
        {job.canSave && (
          <button
            type="button"
            className="primary"
            disabled={busy}
            aria-busy={job.busy === "saving"}
            onClick={() => run(studio.saveJob(job.id))}
            aria-describedby={promptId}
          >
            Save to Library
          </button>
        )}
        {job.savedAs !== null && <span className="saved">✓ Saved to library</span>}
        {job.canCheck && (
          <button
            type="button"
            disabled={busy}
            aria-busy={job.busy === "checking"}
            onClick={() => run(studio.checkStatus(job.id))}
            aria-describedby={promptId}
          >
            Check Status
          </button>
        )}
        {job.canCancel && (
          <button
            type="button"
            disabled={busy}
            aria-busy={job.busy === "cancelling"}
            onClick={() => run(studio.cancelJob(job.id))}
            aria-describedby={promptId}
          >
            Cancel
          </button>
        )}
        {job.canRetry && (
          <button
            type="button"
            disabled={busy}
            aria-describedby={promptId}
            onClick={() => run(studio.retryJob(job.id))}
          >
            Retry
          </button>
        )}
        <Menu label={`More for job ${job.id}`} items={more} />
      </div>
    </li>
  );
}
