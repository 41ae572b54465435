import { useState, type FormEvent } from "react";
import { Studio } from "../core/studio";
import { useStudio, useView } from "../core/useStudio";
import { navigate, projectPath } from "../router";

const STEPS = [
  "Enter a project ID or select a recent project",
  "Generate videos from text prompts",
  "Monitor generation progress in real time",
  "Save finished videos to the project library",
  "View and manage your video collection",
];

export function ProjectPicker() {
  const studio = useStudio();
  const recent = useView("recent");
  const banner = useView("banner");
  const [text, setText] = useState("");
  const cleaned = Studio.cleanProjectId(text);

  const open = (event: FormEvent) => {
    event.preventDefault();
    const id = studio.openProject(text);
    if (id !== undefined) navigate(projectPath(id));
  };

  return (
    <main className="picker">
      <header className="picker-hero">
        <h1>Studio</h1>
        <p className="tagline">
          Create AI-generated videos from text prompts, one project at a time.
        </p>
      </header>

      {banner && (
        <p className="banner" role="alert">
          {banner.message}
          {banner.detail && <span className="banner-detail">{banner.detail}</span>}
        </p>
      )}

      <form className="card open-form" onSubmit={open}>
        <label htmlFor="project-id">Project ID</label>
        <div className="open-row">
          <input
            id="project-id"
            type="text"
            autoFocus
            autoComplete="off"
            spellCheck={false}
            placeholder="e.g. summer-campaign, product-launch-2026"
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-describedby="project-id-hint"
          />
          <button type="submit" className="primary" disabled={cleaned === undefined}>
            Open Project
          </button>
        </div>
        <p id="project-id-hint" className="hint">
          Names are cleaned: lowercase, alphanumeric and hyphens only.
          {cleaned !== undefined && cleaned !== text && (
            <>
              {" "}
              Opens as <code>{cleaned}</code>.
            </>
          )}
          {cleaned === undefined && text.trim() !== "" && (
            <> A project ID has at most {Studio.maxProjectIdChars()} characters.</>
          )}
        </p>
      </form>

      {recent.length > 0 && (
        <section className="recent" aria-labelledby="recent-heading">
          <h2 id="recent-heading">Recent Projects</h2>
          <div className="recent-grid">
            {recent.map((id) => (
              <button
                key={id}
                type="button"
                className="recent-item"
                onClick={() => {
                  const opened = studio.openRecent(id);
                  if (opened !== undefined) navigate(projectPath(opened));
                }}
              >
                <span className="recent-name">{id}</span>
                <span aria-hidden="true">→</span>
              </button>
            ))}
          </div>
        </section>
      )}

      <section className="how" aria-labelledby="how-heading">
        <h2 id="how-heading">How it works</h2>
        <ol>
          {STEPS.map((step) => (
            <li key={step}>{step}</li>
          ))}
        </ol>
      </section>
    </main>
  );
}
