// The storyboard's tools in the Sequence panel: Import script (paste a Fountain screenplay or
// choose a .fountain file), Generate all (the estimate first, with the model and whether
// neighbouring shots go in one call, then the jobs), and the cast with
// the pictures each member brings to the shots that mention it. Every call is the sequence
// editor's; this only renders its view.
import { useId, useState, type FormEvent } from "react";
import type { SequenceEditor } from "../../../pkg/studio_sequence.js";
import { run, runNow } from "../core/useStudio";
import type { GenerateWith as Choice, PanelView } from "./types";

const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

export function Storyboard({ editor, view }: { editor: SequenceEditor; view: PanelView }) {
  const [importing, setImporting] = useState(false);
  const [script, setScript] = useState("");
  const [castShown, setCastShown] = useState(false);
  const [asked, setAsked] = useState<Choice | null>(null);
  const scriptId = useId();
  const estimate = view.estimate;

  const onImport = (event: FormEvent) => {
    event.preventDefault();
    run(editor.importScript(script).then(() => setImporting(false)));
  };
  const onFile = async (file: File | undefined) => {
    if (file) setScript(await file.text());
  };
  const showCast = () => {
    if (!castShown) run(editor.loadCast());
    setCastShown(!castShown);
  };

  return (
    <div className="storyboard">
      <div className="sequence-actions">
        <button type="button" aria-expanded={importing} onClick={() => setImporting(!importing)}>
          Import script
        </button>
        <button type="button" disabled={!view.editor} onClick={() => run(editor.estimateAll())}>
          Generate all
        </button>
        <button type="button" aria-expanded={castShown} onClick={showCast}>
          Cast
        </button>
      </div>
      {importing && (
        <form className="script-import" onSubmit={onImport} aria-label="Import script">
          <label htmlFor={scriptId}>Screenplay (Fountain)</label>
          <textarea
            id={scriptId}
            rows={8}
            value={script}
            placeholder={"INT. KITCHEN - NIGHT\n\nMARA enters.\n\nMARA\nWhere were you?"}
            onChange={(event) => setScript(event.target.value)}
          />
          <label>
            Or choose a file
            <input
              type="file"
              accept=".fountain,.txt,text/plain"
              onChange={(event) => void onFile(event.target.files?.[0])}
            />
          </label>
          <button type="submit" disabled={script.trim() === ""}>
            Import
          </button>
        </form>
      )}
      {estimate && (
        <div className="estimate" role="group" aria-label="Generate all">
          <GenerateWith editor={editor} view={view} asked={asked} setAsked={setAsked} />
          <p data-testid="estimate">
            {estimate.shots} {estimate.shots === 1 ? "shot" : "shots"}, {estimate.jobs}{" "}
            {estimate.jobs === 1 ? "job" : "jobs"}, {estimate.seconds} s of video, estimated{" "}
            {usd.format(estimate.estimateUsd)}.{" "}
            {estimate.remainingUsd === null
              ? "No monthly budget applies."
              : `The monthly budget leaves ${usd.format(estimate.remainingUsd)}${estimate.enough ? "." : ": not enough."}`}
          </p>
          <button
            type="button"
            disabled={estimate.jobs === 0 || !estimate.enough || asked !== null}
            onClick={() => run(editor.generateAll())}
          >
            Start {estimate.jobs} {estimate.jobs === 1 ? "job" : "jobs"}
          </button>
          <button type="button" onClick={() => runNow(() => editor.dismissEstimate())}>
            Not now
          </button>
        </div>
      )}
      {castShown && (
        <section className="cast" aria-label="Cast">
          {view.cast.length === 0 ? (
            <p className="muted">No cast yet: import a script, or add members through the API.</p>
          ) : (
            <ul>
              {view.cast.map((member) => (
                <li key={member.id}>
                  <fieldset>
                    <legend>
                      @{member.name} <span className="muted">({member.kind})</span>
                    </legend>
                    {view.pictures.length === 0 ? (
                      <p className="muted">No pictures in the project yet.</p>
                    ) : (
                      view.pictures.map((picture, index) => (
                        <label key={picture.id} className="cast-picture">
                          <input
                            type="checkbox"
                            checked={member.references.includes(picture.id)}
                            onChange={() => run(editor.togglePicture(member.id, picture.id))}
                          />
                          <img src={picture.url} alt="" />
                          Picture {index + 1}
                        </label>
                      ))
                    )}
                  </fieldset>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </div>
  );
}

/** The model Generate all makes the takes with and, for a model that makes several shots in
 * one call, whether neighbouring shots go in one. A change shows at once and asks for the
 * estimate again; `asked` holds it until the new estimate arrives. */
function GenerateWith({
  editor,
  view,
  asked,
  setAsked,
}: {
  editor: SequenceEditor;
  view: PanelView;
  asked: Choice | null;
  setAsked: (choice: Choice | null) => void;
}) {
  const fallback = view.models.find((m) => m.default)?.id ?? "";
  const shown = asked ?? view.estimate?.madeWith;
  const model = shown?.model ?? fallback;
  const multiShot = shown?.multiShot ?? false;
  const chosen = view.models.find((m) => m.id === model);
  const ask = (choice: Choice) => {
    setAsked(choice);
    run(editor.estimateAll(choice.model, choice.multiShot).finally(() => setAsked(null)));
  };
  if (view.models.length === 0) return null;
  return (
    <div className="generate-with">
      <label>
        Model{" "}
        <select
          value={model}
          onChange={(event) => {
            const next = view.models.find((m) => m.id === event.target.value);
            ask({ model: event.target.value, multiShot: next?.mostShots != null && multiShot });
          }}
        >
          {view.models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.id}
            </option>
          ))}
        </select>
      </label>
      {chosen?.mostShots != null && (
        <label>
          <input
            type="checkbox"
            checked={multiShot}
            onChange={(event) => ask({ model, multiShot: event.target.checked })}
          />{" "}
          Neighbouring shots in one call (up to {chosen.mostShots})
        </label>
      )}
    </div>
  );
}
