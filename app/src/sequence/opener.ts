// Whether the Sequence panel is open, and the library videos asked to be added to it (kept
// until the panel, loaded on first use, takes them).
import { useSyncExternalStore } from "react";

/** A library video, by its file name or its key. */
export type Add = { video: string };

let state = { open: false, adds: [] as Add[] };
const listeners = new Set<() => void>();

/** Opens or closes the panel, with the videos still to be added. */
export function setSequence(open: boolean, adds = state.adds) {
  state = { open, adds };
  for (const listener of listeners) listener();
}

/** Opens the panel to add `add` as the sequence's next shot. */
export const addToSequence = (add: Add) => setSequence(true, [...state.adds, add]);

export function useSequence(): typeof state {
  return useSyncExternalStore(
    (listener) => (listeners.add(listener), () => listeners.delete(listener)),
    () => state,
  );
}
