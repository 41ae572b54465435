// Where an element sits in the window as the page scrolls and resizes: what the windowed lists
// need to know which of their rows are on screen. Read once per frame while scrolling.
import { useLayoutEffect, useState, type RefObject } from "react";

/** How long after the last scroll event the page counts as at rest. */
const REST_MS = 150;

export type ScrollFrame = {
  /** The element's top edge, in pixels from the top of the viewport (negative once above). */
  top: number;
  /** The viewport's height. */
  viewport: number;
  scrolling: boolean;
};

export function useScrollFrame(element: RefObject<HTMLElement | null>): ScrollFrame {
  const [frame, setFrame] = useState<ScrollFrame>({ top: 0, viewport: 0, scrolling: false });
  useLayoutEffect(() => {
    let rest: ReturnType<typeof setTimeout> | undefined;
    let pending = 0;
    const read = (scrolling: boolean) => {
      pending = 0;
      const top = element.current?.getBoundingClientRect().top ?? 0;
      setFrame((old) =>
        old.top === top && old.viewport === window.innerHeight && old.scrolling === scrolling
          ? old
          : { top, viewport: window.innerHeight, scrolling },
      );
    };
    const onScroll = () => {
      clearTimeout(rest);
      rest = setTimeout(() => read(false), REST_MS);
      pending ||= requestAnimationFrame(() => read(true));
    };
    const onResize = () => read(false);
    const observer = new ResizeObserver(onResize);
    if (element.current) observer.observe(element.current);
    // Content above the element (a banner, say) moves it without resizing it.
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
  }, [element]);
  return { ...frame, viewport: frame.viewport || window.innerHeight };
}
