import { useView } from "../core/useStudio";
import { AssetCard } from "./AssetCard";

export function AssetLibrary() {
  const { assets, state } = useView("library");
  return (
    <section className="panel library" aria-labelledby="library-heading">
      <h2 id="library-heading">Asset Library ({assets.length} videos)</h2>
      {state === "loading" && <p className="empty">Loading assets...</p>}
      {state === "empty" && (
        <p className="empty">
          No videos saved yet. Generate and save some videos to see them here.
        </p>
      )}
      {state === "ready" && (
        <ul className="asset-grid">
          {assets.map((asset) => (
            <AssetCard key={asset.key} asset={asset} />
          ))}
        </ul>
      )}
    </section>
  );
}
