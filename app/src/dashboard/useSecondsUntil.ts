import { useEffect, useState } from "react";

/** Whole seconds until the moment `at` (Unix ms), counted down once a second; 0 once it has
 * passed or when there is none. */
export function useSecondsUntil(at: number | null): number {
  const [left, setLeft] = useState({ at, seconds: 0 });
  useEffect(() => {
    if (at === null) return;
    const tick = () => {
      const seconds = Math.max(0, Math.ceil((at - Date.now()) / 1000));
      setLeft({ at, seconds });
      if (seconds === 0) clearInterval(timer);
    };
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, 1000);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [at]);
  // A count made for an earlier moment does not stand for this one.
  return left.at === at ? left.seconds : 0;
}
