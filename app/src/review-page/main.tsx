// The review page a link opens (`/review/<token>`): its own entry, its own small wasm (the
// review slice of the core) and React, and nothing of the studio.
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import init, { ReviewLink } from "../../../pkg/studio_review.js";
import { ReviewPage } from "./ReviewPage";
import "../base.css";
import "./review.css";

const root = document.getElementById("root");
await init();
const link = new ReviewLink(new URL(`${import.meta.env.BASE_URL}api`, document.baseURI).href);
Object.assign(window, { review: link, ReviewLink });
const token = ReviewLink.tokenOf(window.location.pathname);
if (root) {
  createRoot(root).render(
    <StrictMode>
      {token === undefined ? (
        <main className="review-page">
          <h1>Review</h1>
          <p role="alert">This review link is no longer valid.</p>
        </main>
      ) : (
        <ReviewPage link={link} token={token} />
      )}
    </StrictMode>,
  );
}
