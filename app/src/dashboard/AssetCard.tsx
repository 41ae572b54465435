import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import type { AssetView } from "../core/types";
import { run, runNow, useStudio } from "../core/useStudio";
import { Menu, type MenuItem } from "../Menu";
import { addToSequence } from "../sequence/opener";
import { useShotItems } from "../shot/shotItems";

/** The decision buttons, and the key that presses each on a focused card. */
const DECISIONS = [
  { decision: "approved", label: "Approve", key: "A" },
  { decision: "rejected", label: "Reject", key: "R" },
];

type Props = {
  asset: AssetView;
  deleting: boolean;
  /** 1-based place in the shown list, for screen readers (only a window of it is rendered). */
  position: number;
  count: number;
  /** Whether Tab reaches this card (one card of the grid is reachable; arrows move on). */
  tabbable: boolean;
  /** Whether the grid is being scrolled: cards passing by do not load their poster. */
  scrolling: boolean;
  /** Whether the video is chosen for Compare. */
  compared: boolean;
  /** Whether the video is selected to share for review. */
  selected: boolean;
};

/** Whether the visitor asked for less motion (`prefers-reduced-motion`). */
const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

export function AssetCard({
  asset,
  deleting,
  position,
  count,
  tabbable,
  scrolling,
  compared,
  selected,
}: Props) {
  const studio = useStudio();
  const url = asset.publicUrl;
  const parent = asset.parent;
  // Until the card is first hovered or focused it shows only the poster, an image: no video
  // element and no video bytes (a <video> costs a media player and a shadow tree each). Then
  // the muted video plays while hovered or focused, and keeps what it loaded after.
  const [active, setActive] = useState(false);
  // A poster is loaded once the card is on screen with the grid at rest, then kept: a fast
  // scroll through thousands of cards loads only the posters where it stops.
  const [posterShown, setPosterShown] = useState(!scrolling);
  if (!scrolling && !posterShown) setPosterShown(true);
  const [wanted, setWanted] = useState(false);
  const activate = () => {
    setActive(true);
    setWanted(true);
  };
  const video = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    const element = video.current;
    if (!element) return;
    // A visitor who asked for less motion gets the first frame; Play still plays it.
    if (active && !reducedMotion()) element.play().catch(() => undefined);
    else element.pause();
  }, [active, wanted]);

  const toggle = (decision: string) => (asset.decision === decision ? null : decision);
  const remove = () => {
    const question = `Delete "${asset.title}"? The video, its metadata and its poster are removed from the library.`;
    if (window.confirm(question)) run(studio.deleteAsset(asset.key));
  };
  const compare = () => runNow(() => studio.toggleCompare(asset.key));
  const select = () => runNow(() => studio.toggleSelect(asset.key));
  const shot = useShotItems(asset.fileName, video);

  // The keys of a focused card (the Info dialog lists them): F stars, A approves, R rejects
  // (each again takes it back), C compares, S selects, E extends, X remixes, Delete deletes.
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.target !== event.currentTarget || event.ctrlKey || event.metaKey || event.altKey)
      return;
    const key = event.key.toLowerCase();
    const decision = DECISIONS.find((d) => d.key.toLowerCase() === key)?.decision;
    if (key === "f") run(studio.setFavourite(asset.key, !asset.favourite));
    else if (decision) run(studio.setDecision(asset.key, toggle(decision)));
    else if (key === "c" && url) compare();
    else if (key === "s") select();
    else if (key === "e" && url && shot.extend) shot.extend();
    else if (key === "x" && url && shot.remix) shot.remix();
    else if (event.key === "Delete" && !deleting) remove();
    else return;
    event.preventDefault();
  };

  const playable: MenuItem[] = url
    ? [
        { label: "Download", href: url, download: asset.downloadName },
        ...shot.items,
        { label: "Compare", onSelect: compare, checked: compared },
        {
          label: "Add to sequence",
          onSelect: () => addToSequence({ video: asset.fileName }),
        },
      ]
    : [];
  const more: MenuItem[] = [
    ...playable,
    { label: "Select", onSelect: select, checked: selected },
    ...DECISIONS.map(({ decision, label }) => ({
      label,
      onSelect: () => run(studio.setDecision(asset.key, toggle(decision))),
      checked: asset.decision === decision,
    })),
    "separator",
    {
      label: deleting ? "Deleting..." : "Delete",
      onSelect: remove,
      disabled: deleting,
      danger: true,
    },
  ];

  return (
    <div
      role="listitem"
      className={`asset${asset.decision ? ` decision-${asset.decision}` : ""}${compared ? " compared" : ""}${selected ? " selected" : ""}`}
      data-key={asset.key}
      data-position={position}
      aria-setsize={count}
      aria-posinset={position}
      tabIndex={tabbable ? 0 : -1}
      // A card scrolled under a resting pointer is not hovered: the pointer has to move.
      onMouseEnter={() => !scrolling && activate()}
      onMouseMove={() => !active && activate()}
      onMouseLeave={() => setActive(false)}
      onFocus={activate}
      onKeyDown={onKeyDown}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget)) setActive(false);
      }}
    >
      <div className="thumb">
        {url ? (
          <>
            {asset.posterUrl && posterShown && (
              <img
                className="poster"
                src={asset.posterUrl}
                alt=""
                loading="lazy"
                decoding="async"
              />
            )}
            {wanted && (
              <video
                ref={video}
                muted
                loop
                playsInline
                poster={asset.posterUrl ?? undefined}
                src={url}
                aria-label={`Preview of ${asset.title}`}
                onError={() => console.warn(`[studio] could not load video ${url}`)}
              />
            )}
            <span className="duration">{asset.durationBadge}</span>
            {asset.decision && (
              <span className={`decision-mark ${asset.decision}`}>
                {asset.decision === "approved" ? "✓ Approved" : "✗ Rejected"}
              </span>
            )}
            {(compared || selected) && (
              <span className="chosen-marks">
                {selected && <span className="chosen-mark">Selected</span>}
                {compared && <span className="chosen-mark">In Compare</span>}
              </span>
            )}
          </>
        ) : (
          <span className="unavailable">Video unavailable</span>
        )}
      </div>
      <div className="asset-body">
        <div className="asset-head">
          <h3 className="asset-title" title={asset.prompt ?? asset.fileName}>
            {asset.title}
          </h3>
          <button
            type="button"
            className={`star${asset.favourite ? " on" : ""}`}
            aria-pressed={asset.favourite}
            aria-label={`Favourite ${asset.title}`}
            title="Favourite (F)"
            onClick={() => run(studio.setFavourite(asset.key, !asset.favourite))}
          >
            {asset.favourite ? "★" : "☆"}
          </button>
        </div>
        <p className="muted">
          <span>{asset.sizeMb} MB</span> · <span>{asset.dateLabel}</span>
        </p>
        {parent && (
          <button
            type="button"
            className="link parent-link"
            title="Show the video this one was made from"
            onClick={() => studio.searchLibrary(parent.search)}
          >
            From {parent.title}
          </button>
        )}
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
          <Menu label={`More for ${asset.title}`} items={more} />
        </div>
      </div>
    </div>
  );
}
