// Which items of a list of rows of differing heights are on screen as the window scrolls: a
// job's row grows with its progress bar, error or player. Each rendered row's height is
// measured (a ResizeObserver) and remembered by key; rows never rendered count as the average
// of those measured. Rows outside the window are left out of the DOM and stood in for by the
// list's padding, so 2,000 jobs cost a few dozen rows of DOM.
import { useState, type RefObject } from "react";
import { useScrollFrame } from "./useScrollFrame";

/** Rendered beyond each edge of the viewport, in pixels. */
const OVERSCAN_PX = 3000;
/** Assumed for a row before any has been measured. */
const FIRST_GUESS_PX = 180;

export type WindowList = {
  /** The first and one past the last item to render. */
  start: number;
  end: number;
  /** The list's padding that stands in for the rows before `start` and after `end`. */
  before: number;
  after: number;
  /** The ref of each rendered row's element (which carries `data-key`): measures it. */
  measure: (row: HTMLElement | null) => (() => void) | undefined;
};

export function useWindowList(
  list: RefObject<HTMLElement | null>,
  keys: readonly string[],
  gap: number,
): WindowList {
  const frame = useScrollFrame(list);
  const [heights, setHeights] = useState<ReadonlyMap<string, number>>(() => new Map());
  // One observer for the list's life; `measure` is the stable ref callback of every row.
  const [measure] = useState(() => {
    const observer = new ResizeObserver((entries) =>
      setHeights((old) => {
        const next = new Map(old);
        for (const { target } of entries) {
          const row = target as HTMLElement;
          // Nothing real is 0 px tall (jsdom lays nothing out): unmeasured, not empty.
          if (row.offsetHeight > 0) next.set(row.dataset.key ?? "", row.offsetHeight);
        }
        return [...next].some(([key, height]) => old.get(key) !== height) ? next : old;
      }),
    );
    return (row: HTMLElement | null) => {
      if (!row) return undefined;
      observer.observe(row);
      return () => observer.unobserve(row);
    };
  });
  const known = [...heights.values()];
  const guess = known.length ? known.reduce((a, b) => a + b, 0) / known.length : FIRST_GUESS_PX;
  const from = -frame.top - OVERSCAN_PX;
  const to = -frame.top + frame.viewport + OVERSCAN_PX;
  let start = keys.length;
  let end = keys.length;
  let offset = 0;
  let before = 0;
  for (const [i, key] of keys.entries()) {
    const height = heights.get(key) ?? guess;
    if (start === keys.length && offset + height >= from) {
      start = i;
      before = offset;
    }
    if (offset > to) {
      end = i;
      break;
    }
    offset += height + gap;
  }
  if (start === keys.length) before = offset;
  let after = 0;
  for (const key of keys.slice(end)) after += gap + (heights.get(key) ?? guess);
  return { start, end, before, after, measure };
}
