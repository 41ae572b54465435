// The studio's routes, based at the site root: "/" and "/{projectId}" (a review link's
// "/review/{token}" is a page of its own: src/review-page/).
import { useSyncExternalStore } from "react";
import { Studio } from "./core/studio";

export type Route = { name: "picker" } | { name: "dashboard"; projectId: string | null };

function subscribe(onChange: () => void): () => void {
  window.addEventListener("popstate", onChange);
  return () => window.removeEventListener("popstate", onChange);
}

export function routeOf(pathname: string): Route {
  const path = pathname.replace(/^\/+/, "");
  if (path === "") return { name: "picker" };
  let projectId: string | null;
  try {
    projectId = decodeURIComponent(path.replace(/\/+$/, ""));
  } catch {
    projectId = null;
  }
  const valid = projectId !== null && Studio.isValidProjectId(projectId);
  return { name: "dashboard", projectId: valid ? projectId : null };
}

export function usePathname(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname);
}

export function navigate(to: string): void {
  window.history.pushState(null, "", to);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

export function projectPath(projectId: string): string {
  return `/${encodeURIComponent(projectId)}`;
}
