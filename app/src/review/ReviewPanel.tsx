// The project's review links with what reviewers said, pushed live; each can be revoked.
import { run, useStudio, useView } from "../core/useStudio";
import { Notes } from "./Notes";

export default function ReviewPanel() {
  const studio = useStudio();
  const { links, busy } = useView("shares");
  return (
    <section className="panel review-panel" aria-labelledby="review-heading">
      <h2 id="review-heading">Review</h2>
      <ul className="links">
        {links.map((link) => (
          <li key={link.id} className="review-link" data-share={link.id}>
            <div className="review-link-head">
              <span>{link.videos.join(", ")}</span>
              <span className="muted">
                {link.expired ? "Expired" : `Until ${link.expiresLabel}`}
                {link.commentsEnabled ? "" : " · no comments"}
              </span>
              <button
                type="button"
                className="danger"
                disabled={busy}
                onClick={() => {
                  if (window.confirm("Revoke this review link? It stops working at once."))
                    run(studio.revokeShare(link.id));
                }}
              >
                Revoke
              </button>
            </div>
            <Notes notes={link.notes} />
          </li>
        ))}
      </ul>
    </section>
  );
}
