// The Info modal, loaded the first time a video's metadata is opened: it is not on the first
// screen, and neither are the review notes it shows.
import { lazy, Suspense } from "react";
import { useView } from "../core/useStudio";

const MetadataModal = lazy(() => import("./MetadataModal"));

export function Metadata() {
  const metadata = useView("metadata");
  if (metadata === null) return null;
  return (
    <Suspense fallback={null}>
      <MetadataModal />
    </Suspense>
  );
}
