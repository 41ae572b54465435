// Creates the one Studio core of the page: loads the wasm once and the runtime config.
import init, { Studio } from "../../../pkg/studio_core.js";

export { Studio };

let ready: Promise<unknown> | undefined;

/** Loads the wasm module; safe to call any number of times. */
export function loadCore(): Promise<unknown> {
  ready ??= init();
  return ready;
}

/** The page's Studio, configured from the config.json served beside index.html (at the app's
 * base, whatever the route: a review link's page is `/review/<token>`). */
export async function createStudio(): Promise<Studio> {
  await loadCore();
  const studio = new Studio(undefined);
  const configUrl = new URL(`${import.meta.env.BASE_URL}config.json`, document.baseURI).href;
  await studio.loadConfig(configUrl).catch((error: unknown) => {
    console.warn(`[studio] ${String(error)}; using the default API base /api`);
  });
  return studio;
}
