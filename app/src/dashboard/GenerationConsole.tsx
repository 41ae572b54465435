import { useMemo, useRef, type DragEvent, type FormEvent, type KeyboardEvent } from "react";
import { run, useStudio, useView } from "../core/useStudio";
import { ShotInputs } from "../shot/ShotInputs";
import { JobRow } from "./JobRow";
import { useWindowList } from "./useWindowList";

/** The gap between job rows (`.jobs` in styles.css: 0.75rem). */
const GAP = 12;
/** Takes one Generate can make (the core refuses more). */
const TAKES = [1, 2, 3, 4, 5, 6, 7, 8];
/** Sizes offered: landscape and portrait at 480p, 720p and 1080p (the server fits each to
 * what the model makes). */
const SIZES = ["854x480", "480x854", "1280x720", "720x1280", "1920x1080", "1080x1920"];
/** Lengths a job can ask for, in seconds (the core refuses others). */
const SECONDS = Array.from({ length: 20 }, (_, i) => i + 1);

/** The prompt, the model and Generate: renders again only when the console part changes. */
function PromptForm() {
  const studio = useStudio();
  const {
    draft,
    models,
    model,
    takes,
    seconds,
    defaultSeconds,
    size,
    defaultSize,
    canGenerate,
    creating,
    estimate,
    confirm,
  } = useView("console");

  const generate = (event?: FormEvent) => {
    event?.preventDefault();
    if (!canGenerate) return;
    const takesText = takes === 1 ? "" : ` for ${takes} takes`;
    if (confirm && !window.confirm(`Generate${takesText} at about ${estimate ?? ""}?`)) return;
    run(studio.createJob(undefined));
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
      <ShotInputs />
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
        <label className="size">
          Size
          <select
            value={size ?? ""}
            onChange={(e) => studio.setSize(e.target.value === "" ? undefined : e.target.value)}
          >
            <option value="">
              {defaultSize === null ? "Default" : `Default (${defaultSize})`}
            </option>
            {SIZES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label className="seconds">
          Seconds
          <select
            value={seconds ?? ""}
            onChange={(e) =>
              studio.setSeconds(e.target.value === "" ? undefined : Number(e.target.value))
            }
          >
            <option value="">
              {defaultSeconds === null ? "Default" : `Default (${defaultSeconds})`}
            </option>
            {SECONDS.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <label className="takes">
          Takes
          <select value={takes} onChange={(e) => studio.setTakes(Number(e.target.value))}>
            {TAKES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary" disabled={!canGenerate}>
          {creating ? "Creating..." : "Generate"}
          {!creating && estimate && <span className="estimate"> · {estimate}</span>}
        </button>
      </div>
    </form>
  );
}

/** The jobs, windowed: only the rows near the screen are in the DOM. Renders again when the
 * jobs part changes or the window moves past rows. */
function JobList() {
  const { items } = useView("jobs");
  const { chosen } = useView("compare");
  const list = useRef<HTMLUListElement>(null);
  const keys = useMemo(() => items.map((job) => job.id), [items]);
  const rows = useWindowList(list, keys, GAP);
  if (items.length === 0) return <p className="empty">No generation jobs yet.</p>;
  return (
    <>
      <h3>Jobs ({items.length})</h3>
      <ul
        className="jobs"
        ref={list}
        style={{ paddingTop: rows.before, paddingBottom: rows.after }}
      >
        {items.slice(rows.start, rows.end).map((job, i) => (
          <JobRow
            key={job.id}
            job={job}
            measure={rows.measure}
            position={rows.start + i + 1}
            of={items.length}
            compared={chosen.some((item) => item.id === job.id)}
            sameShot={job.take !== null && items[rows.start + i - 1]?.take?.shot === job.take.shot}
          />
        ))}
      </ul>
    </>
  );
}

/** Whether a drag carries files (pictures dropped on the console become reference images). */
const hasFiles = (event: DragEvent) => event.dataTransfer.types.includes("Files");

export function GenerationConsole() {
  const studio = useStudio();
  const onDragOver = (event: DragEvent) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
  };
  const onDrop = (event: DragEvent) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    for (const file of Array.from(event.dataTransfer.files)) run(studio.uploadReference(file));
  };
  return (
    <section
      className="panel console"
      aria-labelledby="console-heading"
      onDragOver={onDragOver}
      onDrop={onDrop}
    >
      <h2 id="console-heading">Generation Console</h2>
      <PromptForm />
      <JobList />
    </section>
  );
}
