import { useEffect, useRef, useState } from "react";
import { useView } from "../core/useStudio";

/** Reads out, politely, a known job's new status (running, done, error) — not each percent,
 * nor the jobs a list brings: a person who cannot see the badges hears a job finish or fail. */
export function JobAnnouncer() {
  const { items } = useView("jobs");
  const seen = useRef<Map<string, string> | null>(null);
  const [said, setSaid] = useState("");
  useEffect(() => {
    const before = seen.current;
    seen.current = new Map(items.map((job) => [job.id, job.status]));
    if (before === null) return;
    const changed = items.filter((job) => before.has(job.id) && before.get(job.id) !== job.status);
    if (changed.length > 0)
      setSaid(changed.map((job) => `${job.prompt}: ${job.status}`).join(". "));
  }, [items]);
  return (
    <p className="visually-hidden" role="status" aria-label="Job status">
      {said}
    </p>
  );
}
