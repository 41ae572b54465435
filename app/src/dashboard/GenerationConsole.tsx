import type { FormEvent, KeyboardEvent } from "react";
import { run, useStudio, useView } from "../core/useStudio";
import { JobRow } from "./JobRow";

/** The prompt, the model and Generate: renders again only when the console part changes. */
function PromptForm() {
  const studio = useStudio();
  const { draft, models, model, canGenerate, creating } = useView("console");

  const generate = (event?: FormEvent) => {
    event?.preventDefault();
    if (canGenerate) run(studio.createJob(undefined));
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) generate(event);
  };

  return (
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
  );
}

/** The jobs: renders again only when the jobs part changes. */
function JobList() {
  const { items } = useView("jobs");
  if (items.length === 0) return <p className="empty">No generation jobs yet.</p>;
  return (
    <>
      <h3>Jobs ({items.length})</h3>
      <ul className="jobs">
        {items.map((job) => (
          <JobRow key={job.id} job={job} />
        ))}
      </ul>
    </>
  );
}

export function GenerationConsole() {
  return (
    <section className="panel console" aria-labelledby="console-heading">
      <h2 id="console-heading">Generation Console</h2>
      <PromptForm />
      <JobList />
    </section>
  );
}
