// The review page a link opens (`/review/<token>`): its own entry, its own small wasm (the
// review slice of the core) and React, and nothing of the studio.
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import init, { ReviewLink } from "../../../pkg/studio_review.js";
import { ReviewPage } from "./ReviewPage";
import "../base.css";
import "./review.css";

const root = document.getElementById("root");

/** The page when its wasm did not load (offline, or a deploy under way): a reload tries again. */
function LoadFailure() {
  return (
    <main className="review-page">
      <h1>Review</h1>
      <p role="alert">
        This review page could not be loaded. Check the connection, then try again.
      </p>
      <button type="button" onClick={() => window.location.reload()}>
        Retry
      </button>
    </main>
  );
}

function page() {
  const link = new ReviewLink(new URL(`${import.meta.env.BASE_URL}api`, document.baseURI).href);
  Object.assign(window, { review: link, ReviewLink });
  const token = ReviewLink.tokenOf(window.location.pathname);
  return token === undefined ? (
    <main className="review-page">
      <h1>Review</h1>
      <p role="alert">This review link is no longer valid.</p>
    </main>
  ) : (
    <ReviewPage link={link} token={token} />
  );
}

const loaded = await init().then(
  () => true,
  () => false,
);
if (root) createRoot(root).render(<StrictMode>{loaded ? page() : <LoadFailure />}</StrictMode>);
