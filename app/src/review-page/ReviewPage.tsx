// The page a review link opens: only the shared videos, each with its player, time-coded
// comments (clicking one seeks there) and Approve / Request changes. No token, nothing else of
// the studio.
import {
  useCallback,
  useEffect,
  useRef,
  useState,
  useSyncExternalStore,
  type RefObject,
} from "react";
import type { ReviewLink } from "../../../pkg/studio_review.js";
import type { CredentialsView, ReviewVideoView } from "../core/types";
import { Notes } from "../review/Notes";
import { CredentialsFacts } from "../credentials/CredentialsFacts";

/** A command's failure is shown in the page's own error line (the link's view); the rejection
 * is only logged. */
function run(command: Promise<unknown>): void {
  command.catch((error: unknown) => console.debug("[review]", error));
}

export function ReviewPage({ link, token }: { link: ReviewLink; token: string }) {
  const subscribe = useCallback((onChange: () => void) => link.subscribe(onChange), [link]);
  const review = useSyncExternalStore(subscribe, () => link.view());
  const [name, setName] = useState("");

  useEffect(() => {
    run(link.open(token));
  }, [link, token]);

  if (review.state === "gone")
    return (
      <main className="review-page">
        <h1>Review</h1>
        <p role="alert">This review link is no longer valid.</p>
        {review.error && <p className="muted">{review.error}</p>}
      </main>
    );
  if (review.state === "failed")
    return (
      <main className="review-page">
        <h1>Review</h1>
        <p role="alert">This review could not be loaded: {review.error}</p>
        <button type="button" className="primary" onClick={() => run(link.open(token))}>
          Retry
        </button>
      </main>
    );
  return (
    <main className="review-page" aria-busy={review.state === "loading"}>
      <h1>{review.title ?? "Review"}</h1>
      {review.state === "ready" && (
        <p className="muted">
          {review.videos.length} {review.videos.length === 1 ? "video" : "videos"} · link valid
          until {review.expiresLabel}
        </p>
      )}
      <label className="review-name">
        Name
        <input
          value={name}
          maxLength={80}
          autoComplete="name"
          onChange={(event) => setName(event.target.value)}
        />
      </label>
      {review.error && (
        <p className="job-error" role="alert">
          {review.error}
        </p>
      )}
      {review.videos.map((video) => (
        <ReviewItem
          key={video.fileName}
          link={link}
          video={video}
          name={name.trim()}
          commentsEnabled={review.commentsEnabled}
          sending={review.sending}
        />
      ))}
    </main>
  );
}

type ItemProps = {
  link: ReviewLink;
  video: ReviewVideoView;
  name: string;
  commentsEnabled: boolean;
  sending: boolean;
};

/** Whether `element` has come within a screen of the view (and stays so once it has). */
function useNear(element: RefObject<HTMLElement | null>): boolean {
  const [near, setNear] = useState(false);
  useEffect(() => {
    const target = element.current;
    if (near || !target) return;
    const watch = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) setNear(true);
      },
      { rootMargin: "100% 0px" },
    );
    watch.observe(target);
    return () => watch.disconnect();
  }, [element, near]);
  return near;
}

function ReviewItem({ link, video, name, commentsEnabled, sending }: ItemProps) {
  const player = useRef<HTMLVideoElement>(null);
  // A link of many videos loads each one's poster and metadata as it comes into view.
  const near = useNear(player);
  const [text, setText] = useState("");
  // The video's Content Credentials once read, or why they could not be.
  const [credentials, setCredentials] = useState<CredentialsView | string>();
  const named = name.length > 0;
  const seek = (seconds: number) => {
    if (player.current) player.current.currentTime = seconds;
  };
  // The text is cleared once the comment is kept, unless it was changed meanwhile.
  const comment = () => {
    const at = player.current?.currentTime ?? 0;
    const sent = text;
    link.postComment(video.fileName, at, name, sent).then(
      () => setText((now) => (now === sent ? "" : now)),
      (error: unknown) => console.debug("[studio]", error),
    );
  };
  const decide = (decision: string) => run(link.postDecision(video.fileName, decision, name));
  return (
    <section className="panel review-item" aria-label={video.title} data-video={video.fileName}>
      <h2>
        {video.title} <span className="ai-label">AI-generated</span>
      </h2>
      {video.title !== video.id && <p className="muted review-id">{video.id}</p>}
      <video
        ref={player}
        className="player"
        controls
        playsInline
        preload={near ? "metadata" : "none"}
        poster={near ? video.posterUrl : undefined}
        src={near ? video.url : undefined}
      />
      <div className="review-decide">
        <button
          type="button"
          className="primary"
          disabled={!named || sending}
          onClick={() => decide("approved")}
        >
          Approve
        </button>
        <button
          type="button"
          disabled={!named || sending}
          onClick={() => decide("changes_requested")}
        >
          Request changes
        </button>
        {!named && <span className="muted">Give your name to comment or decide.</span>}
      </div>
      {commentsEnabled && (
        <form
          className="review-comment"
          onSubmit={(event) => {
            event.preventDefault();
            comment();
          }}
        >
          <label>
            Comment
            <textarea
              value={text}
              maxLength={2000}
              rows={2}
              onChange={(event) => setText(event.target.value)}
            />
          </label>
          <button type="submit" disabled={!named || text.trim() === "" || sending}>
            Comment at current time
          </button>
        </form>
      )}
      <details
        className="review-credentials"
        onToggle={(event) => {
          // Read when first opened; opened again after a failure, read again.
          if (event.currentTarget.open && typeof credentials !== "object")
            link.readCredentials(video.fileName).then(
              (read) => setCredentials(read),
              (error: unknown) =>
                setCredentials(error instanceof Error ? error.message : String(error)),
            );
        }}
      >
        <summary>Content Credentials</summary>
        {typeof credentials === "object" ? (
          <CredentialsFacts credentials={credentials} />
        ) : (
          <p className="muted" role="status">
            {credentials ?? "Reading…"}
          </p>
        )}
      </details>
      <Notes notes={video.notes} onSeek={seek} />
    </section>
  );
}
