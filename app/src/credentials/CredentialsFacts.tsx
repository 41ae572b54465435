import type { CredentialsView } from "../core/types";

/** What each state of a video's Content Credentials is called. */
const CREDENTIALS_STATE: Record<CredentialsView["state"], string> = {
  none: "None: nothing in the file says how it was made",
  broken: "Broken: the file was changed after it was signed",
  untrusted: "Valid, from a signer validators do not trust yet",
  valid: "Valid",
};

/** A video's Content Credentials: how it was made, who signed, and whether they hold. Shown
 * by the Info dialog and by a review link's page. */
export function CredentialsFacts({ credentials }: { credentials: CredentialsView }) {
  return (
    <>
      <dl className="facts" data-testid="credentials">
        {credentials.made && (
          <>
            <dt>Made</dt>
            <dd>{credentials.made}</dd>
          </>
        )}
        {credentials.signer && (
          <>
            <dt>Signed by</dt>
            <dd>{credentials.signer}</dd>
          </>
        )}
        <dt>State</dt>
        <dd>{CREDENTIALS_STATE[credentials.state]}</dd>
      </dl>
      {credentials.note && <p className="muted">{credentials.note}</p>}
      {credentials.errors.length > 0 && (
        <ul className="job-error">
          {credentials.errors.map((error) => (
            <li key={error}>{error}</li>
          ))}
        </ul>
      )}
    </>
  );
}
