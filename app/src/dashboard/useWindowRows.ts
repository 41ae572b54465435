// Which rows of a grid of equal-height rows are on screen as the window scrolls. The library's
// rows all have one height (cards of one width, a 16:9 thumbnail, one-line texts), so this is
// arithmetic on the scroll position: no per-row measuring, and none of a general virtualizer's
// bytes (@tanstack/react-virtual cost 8 KB gzip of a first load that must stay under 160 KB).
import type { RefObject } from "react";
import { useScrollFrame } from "./useScrollFrame";

export type WindowRows = {
  /** The first and one past the last row to render (the visible ones and `overscan` more). */
  start: number;
  end: number;
  /** Where row `index` begins, in pixels from the top of the grid. */
  offset: (index: number) => number;
  /** The grid's whole height. */
  height: number;
  scrolling: boolean;
  /** Scrolls the window so that row `index` is in view. */
  reveal: (index: number) => void;
};

export function useWindowRows(
  grid: RefObject<HTMLElement | null>,
  rows: number,
  rowHeight: number,
  gap: number,
  overscan: number,
): WindowRows {
  const frame = useScrollFrame(grid);
  const stride = rowHeight + gap;
  const viewport = frame.viewport;
  const first = Math.floor(Math.max(0, -frame.top) / stride);
  const last = Math.ceil((viewport - frame.top) / stride);
  const start = Math.max(0, Math.min(rows, first - overscan));
  const end = Math.max(start, Math.min(rows, last + overscan));
  return {
    start,
    end,
    offset: (index) => index * stride,
    height: rows > 0 ? rows * stride - gap : 0,
    scrolling: frame.scrolling,
    reveal: (index) => {
      const box = grid.current?.getBoundingClientRect();
      if (!box) return;
      const rowTop = box.top + index * stride;
      if (rowTop < 0) window.scrollBy(0, rowTop);
      else if (rowTop + rowHeight > window.innerHeight)
        window.scrollBy(0, rowTop + rowHeight - window.innerHeight);
    },
  };
}
