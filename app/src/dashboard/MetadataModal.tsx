import { useRef } from "react";
import { useStudio, useView } from "../core/useStudio";
import { Notes } from "../review/Notes";
import { useModal } from "../useModal";
import type { CredentialsView } from "../core/types";
import { CredentialsFacts } from "../credentials/CredentialsFacts";

/** The video's Content Credentials, under their heading. */
function Credentials({ credentials }: { credentials: CredentialsView }) {
  return (
    <section aria-labelledby="credentials-heading">
      <h3 id="credentials-heading">Content Credentials</h3>
      <CredentialsFacts credentials={credentials} />
    </section>
  );
}

/** The Info modal: a video's facts, prompt, lineage, review notes and technical details. */
export default function MetadataModal() {
  const studio = useStudio();
  const metadata = useView("metadata");
  const { byVideo } = useView("shares");
  const closeButton = useRef<HTMLButtonElement>(null);
  const dialog = useRef<HTMLDivElement>(null);
  useModal(dialog, metadata !== null, () => studio.closeMetadata(), closeButton);

  if (!metadata) return null;
  const { asset } = metadata;
  const reviewed = byVideo[asset.fileName];
  return (
    <div
      className="overlay"
      data-testid="modal-overlay"
      onClick={(e) => e.target === e.currentTarget && studio.closeMetadata()}
    >
      <div
        ref={dialog}
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby="modal-title"
      >
        <div className="modal-head">
          <h2 id="modal-title">Video Metadata</h2>
          <button
            ref={closeButton}
            type="button"
            className="ghost"
            aria-label="Close"
            onClick={() => studio.closeMetadata()}
          >
            ✕
          </button>
        </div>
        <section>
          <h3>Basic Info</h3>
          <dl className="facts">
            <dt>File name</dt>
            <dd>{asset.fileName}</dd>
            <dt>Size</dt>
            <dd>{asset.sizeMb} MB</dd>
            <dt>Created</dt>
            <dd>{metadata.createdLabel}</dd>
          </dl>
        </section>
        {metadata.credentials && <Credentials credentials={metadata.credentials} />}
        {metadata.loading && <p className="muted">Loading metadata...</p>}
        {metadata.error && (
          <p className="job-error" role="alert">
            {metadata.error}
          </p>
        )}
        {metadata.prompt && (
          <section>
            <h3>Prompt</h3>
            <p className="modal-prompt">{metadata.prompt}</p>
          </section>
        )}
        {metadata.madeFrom && (
          <section>
            <h3>Made from</h3>
            <dl className="facts lineage">
              {metadata.madeFrom.parent && (
                <>
                  <dt>{metadata.madeFrom.parentRole}</dt>
                  <dd>{metadata.madeFrom.parent}</dd>
                </>
              )}
              {metadata.madeFrom.images.map((image) => (
                <div key={`${image.role}-${image.reference}`} className="lineage-image">
                  <dt>{image.role}</dt>
                  <dd>
                    {image.url && <img src={image.url} alt="" width={48} />} {image.reference}
                  </dd>
                </div>
              ))}
              {metadata.madeFrom.fit && metadata.madeFrom.images.length > 0 && (
                <>
                  <dt>Fit</dt>
                  <dd>{metadata.madeFrom.fit === "pad" ? "Pad" : "Centre crop"}</dd>
                </>
              )}
            </dl>
          </section>
        )}
        {reviewed && (
          <section>
            <h3>Review</h3>
            <Notes notes={reviewed} />
          </section>
        )}
        <section>
          <h3>Keys on a focused card</h3>
          <dl className="facts keys">
            <dt>F</dt>
            <dd>Favourite</dd>
            <dt>A / R</dt>
            <dd>Approve / Reject</dd>
            <dt>C</dt>
            <dd>Compare</dd>
            <dt>S</dt>
            <dd>Select to share</dd>
            <dt>E / X</dt>
            <dd>Extend / Remix</dd>
            <dt>Delete</dt>
            <dd>Delete (asks first)</dd>
          </dl>
        </section>
        {metadata.detailsJson && (
          <section>
            <h3>Technical Details</h3>
            <pre className="json">{metadata.detailsJson}</pre>
          </section>
        )}
      </div>
    </div>
  );
}
