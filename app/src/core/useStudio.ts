// React over the core: the Studio from context and its snapshot through useSyncExternalStore.
import { createContext, useCallback, useContext, useSyncExternalStore } from "react";
import type { Studio } from "../../../pkg/studio_core.js";
import type { Snapshot } from "./types";

export const StudioContext = createContext<Studio | null>(null);

export function useStudio(): Studio {
  const studio = useContext(StudioContext);
  if (!studio) throw new Error("useStudio needs a StudioContext provider");
  return studio;
}

/** The core's snapshot; the same object until the core's version changes. */
export function useSnapshot(): Snapshot {
  const studio = useStudio();
  const subscribe = useCallback(
    (onChange: () => void) => studio.subscribe(onChange) as () => void,
    [studio],
  );
  const getSnapshot = useCallback(() => studio.snapshot() as Snapshot, [studio]);
  return useSyncExternalStore(subscribe, getSnapshot);
}

/** Runs a core command whose failure the core already shows in the banner. */
export function run(command: Promise<unknown>): void {
  command.catch((error: unknown) => console.debug("[studio]", error));
}
