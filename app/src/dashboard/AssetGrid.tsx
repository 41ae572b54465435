// The library's cards in a windowed grid: only the rows on screen (and a few beyond) are in
// the DOM, so 10,000 videos cost what a screenful costs. Arrow keys, Home and End move between
// cards; one card is reachable with Tab.
import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from "react";
import type { AssetView } from "../core/types";
import { AssetCard } from "./AssetCard";

/** The narrowest card and the gap between cards, in CSS pixels (as in styles.css). */
const CARD_MIN_WIDTH = 224;
const GAP = 14;
/** A row's height before it is measured. */
const ROW_ESTIMATE = 260;

/** The element's width and its top in the page, followed as the layout changes. */
function useBox(element: React.RefObject<HTMLElement | null>): { width: number; top: number } {
  const [box, setBox] = useState({ width: 0, top: 0 });
  useLayoutEffect(() => {
    const target = element.current;
    if (!target) return;
    const observer = new ResizeObserver(() =>
      setBox({
        width: target.clientWidth,
        top: target.getBoundingClientRect().top + window.scrollY,
      }),
    );
    observer.observe(target);
    // Content above the grid (a banner, say) moves it without resizing it.
    observer.observe(document.body);
    return () => observer.disconnect();
  }, [element]);
  return box;
}

type Props = { assets: AssetView[]; deleting: string | null };

export function AssetGrid({ assets, deleting }: Props) {
  const grid = useRef<HTMLDivElement>(null);
  const { width, top } = useBox(grid);
  const columns = Math.max(1, Math.floor((width + GAP) / (CARD_MIN_WIDTH + GAP)));
  const rows = Math.ceil(assets.length / columns);
  const virtualizer = useWindowVirtualizer({
    count: rows,
    estimateSize: () => ROW_ESTIMATE,
    overscan: 1,
    gap: GAP,
    scrollMargin: top,
  });

  const [focused, setFocused] = useState(0);
  const current = Math.min(focused, assets.length - 1);
  const pendingFocus = useRef<number | null>(null);
  useEffect(() => {
    if (pendingFocus.current === null) return;
    const card = grid.current?.querySelector<HTMLElement>(
      `[data-position="${pendingFocus.current + 1}"]`,
    );
    if (card) {
      card.focus();
      pendingFocus.current = null;
    }
  });

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const card = (event.target as HTMLElement).closest<HTMLElement>("[data-position]");
    if (!card || card !== event.target) return;
    const at = Number(card.dataset.position) - 1;
    const moves: Record<string, number> = {
      ArrowRight: at + 1,
      ArrowLeft: at - 1,
      ArrowDown: at + columns,
      ArrowUp: at - columns,
      Home: 0,
      End: assets.length - 1,
    };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    const next = Math.max(0, Math.min(assets.length - 1, target));
    setFocused(next);
    pendingFocus.current = next;
    virtualizer.scrollToIndex(Math.floor(next / columns));
  };

  return (
    <div
      ref={grid}
      role="list"
      aria-label="Saved videos"
      className="asset-grid"
      style={{ height: virtualizer.getTotalSize() }}
      onKeyDown={onKeyDown}
    >
      {virtualizer.getVirtualItems().map((row) => {
        const first = row.index * columns;
        return (
          <div
            key={row.key}
            role="presentation"
            className="asset-row"
            data-index={row.index}
            ref={virtualizer.measureElement}
            style={{
              gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`,
              transform: `translateY(${row.start - virtualizer.options.scrollMargin}px)`,
            }}
          >
            {assets.slice(first, first + columns).map((asset, i) => (
              <AssetCard
                key={asset.key}
                asset={asset}
                deleting={deleting === asset.key}
                position={first + i + 1}
                count={assets.length}
                tabbable={first + i === current}
                scrolling={virtualizer.isScrolling}
              />
            ))}
          </div>
        );
      })}
    </div>
  );
}
