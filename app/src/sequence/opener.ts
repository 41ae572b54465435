// Whether the sequence editor is open over the dashboard, and on which sequence: the address's
// `?cut={id}` (empty until a sequence is open), so a link or a reload opens it and Back closes
// it; the path, and so the spec's two routes, stay as they are. Also the library videos asked
// to be added to the sequence, kept until the editor, loaded on first use, takes them.
import { useSyncExternalStore } from "react";

/** A library video, by its file name or its key. */
export type Add = { video: string };

let adds: Add[] = [];
/** The sequence last open in the editor, and on which page: opened again, it shows that. */
let last = { path: "", cut: "" };
/** Whether the editor may close now (it asks before dropping edits kept aside). */
let mayClose: () => boolean = () => true;
const listeners = new Set<() => void>();
const changed = () => listeners.forEach((listener) => listener());

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener("popstate", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("popstate", listener);
  };
}

/** The address with `cut` as its `?cut=` (none for `null`). */
function withCut(cut: string | null): string {
  const url = new URL(window.location.href);
  if (cut === null) url.searchParams.delete("cut");
  else url.searchParams.set("cut", cut);
  return `${url.pathname}${url.search}${url.hash}`;
}

const cutNow = () => new URLSearchParams(window.location.search).get("cut");

/** The sequence the address opens: `null` when the editor is closed, "" for the newest. */
export const useCut = (): string | null => useSyncExternalStore(subscribe, cutNow);

/** The videos still to be added. */
export const useAdds = (): Add[] => useSyncExternalStore(subscribe, () => adds);

/** Opens the editor over the dashboard, on the sequence last open on this page: a step in the
 * history, which Back undoes. */
export function openEditor() {
  if (cutNow() !== null) return;
  const again = last.path === window.location.pathname ? last.cut : "";
  window.history.pushState({ cut: true }, "", withCut(again));
  changed();
}

/** Closes the editor, when it may: back to the step before it opened, or (opened by a link or
 * a reload) to the address without `?cut=`. */
export function closeEditor() {
  if (cutNow() === null || !mayClose()) return;
  if ((window.history.state as { cut?: boolean } | null)?.cut) window.history.back();
  else {
    window.history.replaceState(null, "", withCut(null));
    changed();
  }
}

/** Names the sequence open in the editor in the address, in place. */
export function showCut(id: string) {
  last = { path: window.location.pathname, cut: id };
  if (cutNow() === null || cutNow() === id) return;
  window.history.replaceState(window.history.state, "", withCut(id));
  changed();
}

/** What the editor asks before it closes; `null` when it no longer asks. */
export function guardClose(ask: (() => boolean) | null) {
  mayClose = ask ?? (() => true);
}

/** Opens the editor to add `add` as the sequence's next shot. */
export function addToSequence(add: Add) {
  adds = [...adds, add];
  changed();
  openEditor();
}

/** The videos asked to be added so far, which the editor now adds. */
export function takeAdds(): Add[] {
  const taken = adds;
  adds = [];
  changed();
  return taken;
}
