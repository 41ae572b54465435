// The Review panel, loaded the first time the project has a review link.
import { lazy, Suspense } from "react";
import { useView } from "../core/useStudio";

const ReviewPanel = lazy(() => import("./ReviewPanel"));

export function Reviews() {
  const { links } = useView("shares");
  if (links.length === 0) return null;
  return (
    <Suspense fallback={null}>
      <ReviewPanel />
    </Suspense>
  );
}
