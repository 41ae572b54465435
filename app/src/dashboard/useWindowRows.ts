// Which rows of a grid of equal-height rows are on screen as the window scrolls. The library's
// rows all have one height (cards of one width, a 16:9 thumbnail, one-line texts), so this is
// arithmetic on the scroll position: no per-row measuring, and none of a general virtualizer's
// bytes (@tanstack/react-virtual cost 8 KB gzip of a first load that must stay under 160 KB).
import { useLayoutEffect, useState, type RefObject } from "react";

/** How long after the last scroll event the grid counts as at rest. */
const REST_MS = 150;

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

type Frame = { top: number; viewport: number; scrolling: boolean };

export function useWindowRows(
  grid: RefObject<HTMLElement | null>,
  rows: number,
  rowHeight: number,
  gap: number,
  overscan: number,
): WindowRows {
  const [frame, setFrame] = useState<Frame>({ top: 0, viewport: 0, scrolling: false });
  useLayoutEffect(() => {
    let rest: ReturnType<typeof setTimeout> | undefined;
    let pending = 0;
    const read = (scrolling: boolean) => {
      pending = 0;
      const top = grid.current?.getBoundingClientRect().top ?? 0;
      setFrame({ top, viewport: window.innerHeight, scrolling });
    };
    const onScroll = () => {
      clearTimeout(rest);
      rest = setTimeout(() => read(false), REST_MS);
      pending ||= requestAnimationFrame(() => read(true));
    };
    const onResize = () => read(false);
    const observer = new ResizeObserver(onResize);
    if (grid.current) observer.observe(grid.current);
    // Content above the grid (a banner, say) moves it without resizing it.
    observer.observe(document.body);
    window.addEventListener("scroll", onScroll, { passive: true });
    window.addEventListener("resize", onResize);
    return () => {
      clearTimeout(rest);
      cancelAnimationFrame(pending);
      observer.disconnect();
      window.removeEventListener("scroll", onScroll);
      window.removeEventListener("resize", onResize);
    };
  }, [grid]);

  const stride = rowHeight + gap;
  // Before the first measurement, render one screenful from the top.
  const viewport = frame.viewport || window.innerHeight;
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
