// The page a review link opens: only the shared videos, each with its player, time-coded
// comments (clicking one seeks there) and Approve / Request changes. No token, nothing else of
// the studio.
import { useEffect, useRef, useState } from "react";
import type { ReviewVideoView } from "../core/types";
import { run, useStudio, useView } from "../core/useStudio";
import { Notes } from "./Notes";

export default function ReviewPage({ token }: { token: string }) {
  const studio = useStudio();
  const review = useView("review");
  const [name, setName] = useState("");

  useEffect(() => {
    run(studio.openReview(token));
  }, [studio, token]);

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
        <button type="button" className="primary" onClick={() => run(studio.openReview(token))}>
          Retry
        </button>
      </main>
    );
  return (
    <main className="review-page" aria-busy={review.state === "loading"}>
      <h1>Review</h1>
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
  video: ReviewVideoView;
  name: string;
  commentsEnabled: boolean;
  sending: boolean;
};

function ReviewItem({ video, name, commentsEnabled, sending }: ItemProps) {
  const studio = useStudio();
  const player = useRef<HTMLVideoElement>(null);
  const [text, setText] = useState("");
  const named = name.length > 0;
  const seek = (seconds: number) => {
    if (player.current) player.current.currentTime = seconds;
  };
  const comment = () => {
    const at = player.current?.currentTime ?? 0;
    studio.postComment(video.fileName, at, name, text).then(
      () => setText(""),
      (error: unknown) => console.debug("[studio]", error),
    );
  };
  const decide = (decision: string) => run(studio.postDecision(video.fileName, decision, name));
  return (
    <section className="panel review-item" aria-label={video.title} data-video={video.fileName}>
      <h2>{video.title}</h2>
      <video
        ref={player}
        className="player"
        controls
        playsInline
        preload="metadata"
        poster={video.posterUrl}
        src={video.url}
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
      <Notes notes={video.notes} onSeek={seek} />
    </section>
  );
}
