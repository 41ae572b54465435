import type { AssetView } from "../core/types";
import { run, useStudio } from "../core/useStudio";

export function AssetCard({ asset }: { asset: AssetView }) {
  const studio = useStudio();
  const url = asset.publicUrl;
  return (
    <li className="asset" data-key={asset.key}>
      <div className="thumb">
        {url ? (
          <>
            <video
              muted
              playsInline
              preload="metadata"
              src={asset.thumbnailUrl ?? url}
              aria-label={`Preview of ${asset.title}`}
              onError={() => console.warn(`[studio] could not load video ${url}`)}
            />
            <span className="duration">{asset.durationBadge}</span>
          </>
        ) : (
          <span className="unavailable">Video unavailable</span>
        )}
      </div>
      <div className="asset-body">
        <h3 className="asset-title" title={asset.fileName}>
          {asset.title}
        </h3>
        <p className="muted">
          <span>{asset.sizeMb} MB</span> · <span>{asset.dateLabel}</span>
        </p>
        <div className="asset-actions">
          <button
            type="button"
            disabled={!url}
            onClick={() => url && window.open(url, "_blank", "noopener,noreferrer")}
          >
            <span aria-hidden="true">▶ </span>Play
          </button>
          <button type="button" onClick={() => run(studio.openMetadata(asset.key))}>
            Info
          </button>
        </div>
      </div>
    </li>
  );
}
