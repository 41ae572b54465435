import { render } from "@testing-library/react";
import { App } from "../src/App";
import { Studio } from "../src/core/studio";
import { StudioContext } from "../src/core/useStudio";

export const API = "http://test.local/api";

export function renderAt(path: string, studio = new Studio({ apiBase: API, token: "secret" })) {
  window.history.pushState(null, "", path);
  const view = render(
    <StudioContext.Provider value={studio}>
      <App />
    </StudioContext.Provider>,
  );
  return { studio, ...view };
}

export function storeJobs(projectId: string, jobs: object[]) {
  localStorage.setItem(`jobs:${projectId}`, JSON.stringify(jobs));
}

export const T0 = "2026-11-21T10:00:00.000Z";

export function job(fields: object) {
  return {
    sora_job_id: "local-1:task_a",
    status: "queued",
    progress: 0,
    prompt: "a red fox",
    preview_url: null,
    final_r2_key: null,
    created_at: T0,
    updated_at: T0,
    ...fields,
  };
}
