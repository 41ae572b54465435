// What a refused command said, for the one notice on screen: the 5th Compare, the 51st Select,
// a second request on a job or video while one is on its way, an image over 20 MB. Failures of
// the server's calls are the banner's (the core shows them there) and are not repeated here.
import { useSyncExternalStore } from "react";

export type Refusal = { id: number; text: string };

let current: Refusal | null = null;
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function set(refusal: Refusal | null): void {
  current = refusal;
  for (const listener of listeners) listener();
}

/** Shows why a command was refused, when it was (a failed call is the banner's). */
export function tell(error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  if (!(error instanceof Error) || ["api", "over-budget", "storage"].includes(String(code))) return;
  set({ id: (current?.id ?? 0) + 1, text: error.message });
}

export function dismiss(): void {
  set(null);
}

export function useRefusal(): Refusal | null {
  return useSyncExternalStore(subscribe, () => current);
}
