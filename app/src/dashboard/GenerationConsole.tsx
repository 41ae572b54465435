import type { FormEvent, KeyboardEvent } from "react";
import { run, useSnapshot, useStudio } from "../core/useStudio";
import { JobRow } from "./JobRow";

export function GenerationConsole() {
  const studio = useStudio();
  const { draft, models, model, canGenerate, creating, jobs } = useSnapshot();

  const generate = (event?: FormEvent) => {
    event?.preventDefault();
    if (canGenerate) run(studio.createJob(undefined));
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) generate(event);
  };

  return (
    <section className="panel console" aria-labelledby="console-heading">
      <h2 id="console-heading">Generation Console</h2>
      <form onSubmit={generate}>
        <textarea
          aria-label="Prompt"
          placeholder="Describe the video you want to generate..."
          rows={4}
          value={draft}
          onChange={(e) => studio.setDraft(e.target.value)}
          onKeyDown={onKeyDown}
        />
        <div className="console-actions">
          <span className="hint">Ctrl+Enter to generate</span>
          {models.length > 1 && (
            <label className="model">
              Model
              <select value={model} onChange={(e) => studio.setModel(e.target.value)}>
                {models.map((id) => (
                  <option key={id} value={id}>
                    {id}
                  </option>
                ))}
              </select>
            </label>
          )}
          <button type="submit" className="primary" disabled={!canGenerate}>
            {creating ? "Creating..." : "Generate"}
          </button>
        </div>
      </form>
      {jobs.length === 0 ? (
        <p className="empty">No generation jobs yet.</p>
      ) : (
        <>
          <h3>Jobs ({jobs.length})</h3>
          <ul className="jobs">
            {jobs.map((job) => (
              <JobRow key={job.id} job={job} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
