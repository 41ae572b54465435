// The takes being made for one shot of the strip, as the sequence editor's view has them:
// queued, running with its progress (estimated when the provider tells none), or failed with
// the reason. A finished take is saved by the server and shows as the shot's take.
import { ProgressTrack } from "../ProgressTrack";
import type { ShotJob } from "./types";

function line(job: ShotJob): string {
  switch (job.status) {
    case "queued":
      return "Take queued";
    case "running":
      return `Making take: ${job.estimated ? "about " : ""}${job.progress}%`;
    default:
      return `Take failed: ${job.error ?? "unknown error"}`;
  }
}

export function ShotMaking({ jobs }: { jobs: ShotJob[] | undefined }) {
  if (!jobs || jobs.length === 0) return null;
  return (
    <ul className="shot-making" aria-label="Takes being made">
      {jobs.map((job) => (
        <li key={job.job} className={job.status === "error" ? "shot-making-failed" : undefined}>
          <span>{line(job)}</span>
          {job.status === "running" && (
            <ProgressTrack label="Take progress" percent={job.progress} />
          )}
        </li>
      ))}
    </ul>
  );
}
