// React over the core: the Studio from context, and one part of its snapshot through
// useSyncExternalStore (the part's object keeps its identity until that part changes).
import { createContext, useCallback, useContext, useSyncExternalStore } from "react";
import type { Studio } from "../../../pkg/studio_core.js";
import { tell } from "./refusals";
import type { Snapshot } from "./types";

export const StudioContext = createContext<Studio | null>(null);

export function useStudio(): Studio {
  const studio = useContext(StudioContext);
  if (!studio) throw new Error("useStudio needs a StudioContext provider");
  return studio;
}

export type Part = Exclude<keyof Snapshot, "version">;

/** One part of the core's state; the component renders again only when that part changes. */
export function useView<K extends Part>(part: K): Snapshot[K] {
  const studio = useStudio();
  const subscribe = useCallback(
    (onChange: () => void) => studio.subscribe(onChange, part),
    [studio, part],
  );
  const getSnapshot = useCallback(() => studio.view(part), [studio, part]);
  return useSyncExternalStore(subscribe, getSnapshot);
}

/** Runs a core command: a failed call the core shows in the banner, a refusal the notice. */
export function run(command: Promise<unknown>): void {
  command.catch(refused);
}

/** Runs a command that answers at once; a refusal is shown as `run` shows it. */
export function runNow(command: () => unknown): void {
  try {
    command();
  } catch (error) {
    refused(error);
  }
}

/** A refusal is shown in the notice (see `refusals.ts`) and logged. */
function refused(error: unknown): void {
  console.debug("[studio]", error);
  tell(error);
}
