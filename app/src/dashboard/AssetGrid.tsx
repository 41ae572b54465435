// The library's cards in a windowed grid: only the rows on screen (and one beyond each way)
// are in the DOM, and the core hands over only the cards of a window around them
// (`showLibraryCards`), so 100,000 videos cost what a few screenfuls cost. Arrow keys, Home
// and End move between cards; one card is reachable with Tab. A card that had focus keeps it
// when a new width lays the rows out again.
import {
  useCallback,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  type FocusEvent,
  type KeyboardEvent,
} from "react";
import type { LibraryView } from "../core/types";
import { useStudio, useView } from "../core/useStudio";
import { AssetCard } from "./AssetCard";
import { useWindowRows } from "./useWindowRows";

/** The narrowest card and the gap between cards, in CSS pixels (as in styles.css). */
const CARD_MIN_WIDTH = 224;
const GAP = 14;
/** A row's height until one is measured. */
const ROW_ESTIMATE = 260;

/** The element's width, followed as the layout changes. */
function useWidth(element: React.RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const target = element.current;
    if (!target) return;
    const observer = new ResizeObserver(() => setWidth(target.clientWidth));
    observer.observe(target);
    return () => observer.disconnect();
  }, [element]);
  return width;
}

type Props = { cards: LibraryView };

export function AssetGrid({ cards }: Props) {
  const studio = useStudio();
  const { assets, first: held, matching: count, deleting } = cards;
  const grid = useRef<HTMLDivElement>(null);
  const { chosen } = useView("compare");
  const compared = new Set(chosen.map((item) => item.id));
  const selected = new Set(useView("shares").selected);
  const width = useWidth(grid);
  const columns = Math.max(1, Math.floor((width + GAP) / (CARD_MIN_WIDTH + GAP)));
  const [rowHeight, setRowHeight] = useState(ROW_ESTIMATE);
  // Every row has the height of the first one rendered; rows are keyed by the width too, so a
  // new width mounts new rows and they are measured again.
  const measure = useCallback((row: HTMLDivElement | null) => {
    if (row && row.offsetHeight > 0) setRowHeight(row.offsetHeight);
  }, []);
  const rows = useWindowRows(grid, Math.ceil(count / columns), rowHeight, GAP, 1);

  // The cards on screen must be among those the core holds: when they are not, ask for them
  // and a screenful more each way, before the browser paints.
  const wantedFirst = rows.start * columns;
  const wantedEnd = Math.min(count, rows.end * columns);
  const heldEnd = held + assets.length;
  useLayoutEffect(() => {
    if (wantedFirst >= held && wantedEnd <= heldEnd) return;
    const margin = wantedEnd - wantedFirst;
    studio.showLibraryCards(Math.max(0, wantedFirst - margin), wantedEnd + margin);
  }, [studio, wantedFirst, wantedEnd, held, heldEnd]);

  const [focused, setFocused] = useState(0);
  const current = Math.min(focused, count - 1);
  const pendingFocus = useRef<number | null>(null);
  // Whether a card has focus; left true when a new width unmounts it (no blur comes then).
  const holdsFocus = useRef(false);
  const laidOutAt = useRef(width);
  useLayoutEffect(() => {
    if (laidOutAt.current === width) return;
    laidOutAt.current = width;
    if (!holdsFocus.current || grid.current?.contains(document.activeElement)) return;
    pendingFocus.current = current;
    rows.reveal(Math.floor(current / columns));
  });
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

  const onFocus = (event: FocusEvent<HTMLDivElement>) => {
    const card = (event.target as HTMLElement).closest<HTMLElement>("[data-position]");
    holdsFocus.current = card === event.target;
    if (holdsFocus.current) setFocused(Number(card?.dataset.position) - 1);
  };
  const onBlur = (event: FocusEvent<HTMLDivElement>) => {
    if (!grid.current?.contains(event.relatedTarget)) holdsFocus.current = false;
  };

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
      End: count - 1,
    };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    const next = Math.max(0, Math.min(count - 1, target));
    setFocused(next);
    pendingFocus.current = next;
    rows.reveal(Math.floor(next / columns));
  };

  const shown = [];
  for (let row = rows.start; row < rows.end; row++) {
    const first = row * columns;
    const inRow = [];
    for (let at = first; at < Math.min(first + columns, count); at++) {
      const asset = assets[at - held];
      if (!asset) continue;
      inRow.push(
        <AssetCard
          key={asset.key}
          asset={asset}
          deleting={deleting === asset.key}
          position={at + 1}
          count={count}
          tabbable={at === current}
          scrolling={rows.scrolling}
          compared={compared.has(asset.key)}
          selected={selected.has(asset.key)}
        />,
      );
    }
    shown.push(
      <div
        key={`${width}:${row}`}
        role="presentation"
        className="asset-row"
        ref={row === rows.start ? measure : undefined}
        style={{
          gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`,
          transform: `translateY(${rows.offset(row)}px)`,
        }}
      >
        {inRow}
      </div>,
    );
  }

  return (
    <div
      ref={grid}
      role="list"
      aria-label="Saved videos"
      className="asset-grid"
      style={{ height: rows.height }}
      onKeyDown={onKeyDown}
      onFocus={onFocus}
      onBlur={onBlur}
    >
      {shown}
    </div>
  );
}
