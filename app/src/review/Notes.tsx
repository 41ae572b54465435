// What reviewers said of a video: decisions, then time-coded comments (as text, never markup).
// Clicking a comment's time seeks the video there when a player is given.
import type { NotesView } from "../core/types";
import "./notes.css";

type Props = { notes: NotesView; onSeek?: (seconds: number) => void };

export function Notes({ notes, onSeek }: Props) {
  if (notes.comments.length === 0 && notes.decisions.length === 0)
    return <p className="muted">No comments yet.</p>;
  return (
    <div className="notes">
      {notes.decisions.length > 0 && (
        <ul className="verdicts" aria-label="Decisions">
          {notes.decisions.map((d) => (
            <li key={d.id} className={`verdict ${d.verdict}`}>
              <strong>{d.label}</strong> by {d.name} <span className="muted">{d.createdLabel}</span>
            </li>
          ))}
        </ul>
      )}
      {notes.comments.length > 0 && (
        <ul className="comments" aria-label="Comments">
          {notes.comments.map((c) => (
            <li key={c.id} className="comment">
              {onSeek ? (
                <button type="button" className="link at" onClick={() => onSeek(c.atSeconds)}>
                  {c.atLabel}
                </button>
              ) : (
                <span className="at">{c.atLabel}</span>
              )}{" "}
              <strong className="comment-name">{c.name}</strong>{" "}
              <span className="comment-text">{c.text}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
