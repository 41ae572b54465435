// The Review panel, loaded the first time the project has a review link.
import { lazyPanel } from "../LazyPanel";
import { useView } from "../core/useStudio";

const ReviewPanel = lazyPanel(() => import("./ReviewPanel"), "Review panel");

export function Reviews() {
  const { links } = useView("shares");
  if (links.length === 0) return null;
  return <ReviewPanel />;
}
