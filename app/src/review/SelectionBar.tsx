// The videos selected in the library: downloaded as one ZIP, or made into a review link (how
// long it lives, whether it takes comments); then the link, shown once, to copy. Loaded the
// first time a video is selected (`Selection.tsx`).
import { useState } from "react";
import { run, useStudio, useView } from "../core/useStudio";

const LIFETIMES = [
  { hours: 24, label: "1 day" },
  { hours: 72, label: "3 days" },
  { hours: 168, label: "1 week" },
  { hours: 720, label: "30 days" },
];

export default function SelectionBar() {
  const studio = useStudio();
  const { selected, created, busy } = useView("shares");
  const [hours, setHours] = useState(72);
  const [comments, setComments] = useState(true);
  const [title, setTitle] = useState("");
  const [copied, setCopied] = useState(false);
  if (selected.length === 0 && !created) return null;
  const copy = (url: string) =>
    navigator.clipboard.writeText(url).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <div className="share-bar" role="region" aria-label="Selected videos">
      {selected.length > 0 && (
        <>
          <span className="muted">{selected.length} selected</span>
          <button type="button" onClick={() => run(studio.downloadSelected())}>
            Download selected
          </button>
          <label>
            Title
            <input
              value={title}
              maxLength={120}
              placeholder="What the client sees"
              onChange={(event) => setTitle(event.target.value)}
            />
          </label>
          <label>
            Link lasts
            <select value={hours} onChange={(event) => setHours(Number(event.target.value))}>
              {LIFETIMES.map((lifetime) => (
                <option key={lifetime.hours} value={lifetime.hours}>
                  {lifetime.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            <input
              type="checkbox"
              checked={comments}
              onChange={(event) => setComments(event.target.checked)}
            />
            Allow comments
          </label>
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => {
              setCopied(false);
              run(studio.shareSelected(hours, comments, title));
            }}
          >
            Share for review
          </button>
        </>
      )}
      {created && selected.length === 0 && (
        <>
          <label className="share-link">
            Review link
            <input readOnly value={created.url} onFocus={(event) => event.target.select()} />
          </label>
          <button type="button" onClick={() => copy(created.url)}>
            {copied ? "Copied" : "Copy link"}
          </button>
          <span className="muted">Until {created.expiresLabel}; shown only now.</span>
        </>
      )}
      <button type="button" onClick={() => studio.clearSelection()}>
        {selected.length > 0 ? "Clear" : "Done"}
      </button>
    </div>
  );
}
