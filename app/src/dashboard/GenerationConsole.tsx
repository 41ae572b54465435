import {
  useEffect,
  useMemo,
  useRef,
  type DragEvent,
  type FormEvent,
  type KeyboardEvent,
} from "react";
import { run, useStudio, useView } from "../core/useStudio";
import { useMentions } from "../mention/useMentions";
import { ShotInputs } from "../shot/ShotInputs";
import { JobAnnouncer } from "./JobAnnouncer";
import { JobRow } from "./JobRow";
import { useSecondsUntil } from "./useSecondsUntil";
import { useWindowList } from "./useWindowList";

/** The gap between job rows (`.jobs` in styles.css: 0.75rem). */
const GAP = 12;
/** Takes one Generate can make (the core refuses more). */
const TAKES = ["1", "2", "3", "4", "5", "6", "7", "8"];
/** Sizes offered: landscape and portrait at 480p, 720p and 1080p (the server fits each to
 * what the model makes). */
const SIZES = ["854x480", "480x854", "1280x720", "720x1280", "1920x1080", "1080x1920"];
/** Lengths a job can ask for, in seconds (the core refuses others). */
const SECONDS = Array.from({ length: 20 }, (_, i) => String(i + 1));

/** One of the console's choices as a labelled select. With `fallback`, a first option
 * "Default (…)" stands for the model's own choice, and choosing it gives `undefined`. */
function Choice({
  name,
  value,
  options,
  fallback,
  onChoose,
}: {
  name: string;
  value: string | null;
  options: string[];
  fallback?: string | null;
  onChoose: (value: string | undefined) => void;
}) {
  const defaults = fallback !== undefined;
  return (
    <label className={name.toLowerCase()}>
      {name}
      <select
        value={value ?? ""}
        onChange={(e) => onChoose(defaults && e.target.value === "" ? undefined : e.target.value)}
      >
        {defaults && (
          <option value="">{fallback === null ? "Default" : `Default (${fallback})`}</option>
        )}
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </label>
  );
}

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
    againAt,
    estimate,
    confirm,
    cast,
  } = useView("console");
  const prompt = useRef<HTMLTextAreaElement>(null);
  const mentions = useMentions(
    prompt,
    (text, caret) => studio.mentionAt(text, caret),
    (box, text, caret) => {
      studio.setDraft(text);
      box.value = text;
      box.setSelectionRange(caret, caret);
    },
  );
  const { look } = mentions;
  // A cast read while a mention is being typed offers its names at once.
  useEffect(() => {
    if (prompt.current && document.activeElement === prompt.current) look(prompt.current);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [cast]);
  // After a create refused for a while (429), Generate waits as long as the server said.
  const wait = useSecondsUntil(againAt);

  const generate = (event?: FormEvent) => {
    event?.preventDefault();
    if (!canGenerate || wait > 0) return;
    const takesText = takes === 1 ? "" : ` for ${takes} takes`;
    if (confirm && !window.confirm(`Generate${takesText} at about ${estimate ?? ""}?`)) return;
    run(studio.createJob(undefined));
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (mentions.onKeyDown(event)) return;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) generate(event);
  };

  return (
    <form onSubmit={generate}>
      <div className="mention-box">
        <textarea
          ref={prompt}
          aria-label="Prompt"
          placeholder="Describe the video you want to generate..."
          rows={4}
          {...mentions.boxProps}
          value={draft}
          onChange={(e) => {
            studio.setDraft(e.target.value);
            look(e.target);
          }}
          onFocus={() => studio.loadCast()}
          onKeyDown={onKeyDown}
          onBlur={mentions.close}
        />
        {mentions.list}
      </div>
      <ShotInputs />
      <div className="console-actions">
        <span className="hint">Ctrl+Enter to generate</span>
        {models.length > 1 && (
          <Choice
            name="Model"
            value={model}
            options={models}
            onChoose={(value) => value !== undefined && studio.setModel(value)}
          />
        )}
        <Choice
          name="Size"
          value={size}
          options={SIZES}
          fallback={defaultSize}
          onChoose={(value) => studio.setSize(value)}
        />
        <Choice
          name="Seconds"
          value={seconds === null ? null : String(seconds)}
          options={SECONDS}
          fallback={defaultSeconds === null ? null : String(defaultSeconds)}
          onChoose={(value) => studio.setSeconds(value === undefined ? undefined : Number(value))}
        />
        <Choice
          name="Takes"
          value={String(takes)}
          options={TAKES}
          onChoose={(value) => value !== undefined && studio.setTakes(Number(value))}
        />
        {wait > 0 && <span className="hint">Generate can be tried again in {wait} s</span>}
        <button type="submit" className="primary" disabled={!canGenerate || wait > 0}>
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
  if (items.length === 0)
    return (
      <>
        <JobAnnouncer />
        <p className="empty">No generation jobs yet.</p>
      </>
    );
  return (
    <>
      <JobAnnouncer />
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
