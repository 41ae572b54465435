// The Info modal, loaded the first time a video's metadata is opened: it is not on the first
// screen, and neither are the review notes it shows.
import { lazyPanel } from "../LazyPanel";
import { useView } from "../core/useStudio";

const MetadataModal = lazyPanel(() => import("./MetadataModal"), "video information");

export function Metadata() {
  const metadata = useView("metadata");
  if (metadata === null) return null;
  return <MetadataModal />;
}
