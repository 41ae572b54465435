import { lazyPanel } from "../LazyPanel";
import { useStudio, useView } from "../core/useStudio";

/** The side-by-side player, loaded the first time Compare opens. */
const ComparePlayer = lazyPanel(
  () => import("./ComparePlayer"),
  "Compare player",
  <div className="overlay" aria-busy="true" />,
);

/** The videos chosen for Compare, with Compare and Clear; and the player once opened. */
export function CompareBar() {
  const studio = useStudio();
  const { chosen, open, canOpen } = useView("compare");
  if (chosen.length === 0) return null;
  return (
    <>
      <div className="compare-bar" role="region" aria-label="Compare">
        <span className="muted">
          {chosen.length} of 2 to 4 chosen: {chosen.map((item) => item.title).join(", ")}
        </span>
        <button
          type="button"
          className="primary"
          disabled={!canOpen}
          onClick={() => studio.openCompare()}
        >
          Compare ({chosen.length})
        </button>
        <button type="button" onClick={() => studio.closeCompare(true)}>
          Clear
        </button>
      </div>
      {open && <ComparePlayer items={chosen} />}
    </>
  );
}
