import { act, fireEvent, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { deferred, fakeServer, json } from "./fakeServer";
import { API, job, renderAt, storeJobs } from "./render";

const VIDEO = {
  key: "projects/p1/local-1:task_abcdefghijklmnopqrstuvwxyz.mp4",
  size_bytes: 5_347_737,
  last_modified: "2026-11-21T10:03:00Z",
  public_url: "http://test.local/media/projects/p1/local-1:task_abcdefghijklmnopqrstuvwxyz.mp4",
};

describe("dashboard", () => {
  it("shows the header, empty states and a disabled Generate", async () => {
    const calls = fakeServer(() => json({ videos: [] }));
    renderAt("/p1");
    expect(screen.getByText("Project: p1")).toBeTruthy();
    expect(screen.getByText("Loading assets...")).toBeTruthy();
    expect(await screen.findByText(/No videos saved yet\./)).toBeTruthy();
    expect(screen.getByText("No generation jobs yet.")).toBeTruthy();
    expect(screen.getByRole("heading", { name: "Asset Library (0 videos)" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Generate" })).toBeDisabled();
    expect(calls[0]).toMatchObject({
      method: "GET",
      url: `${API}/projects/p1/assets?limit=100`,
      auth: "Bearer secret",
    });
  });

  it("says Invalid project ID when the parameter is missing", () => {
    fakeServer(() => json({ videos: [] }));
    renderAt("/%20");
    expect(screen.getByText("Invalid project ID")).toBeTruthy();
  });

  it("creates a job: Creating..., then a queued row, and clears the prompt", async () => {
    const create = deferred(json({ sora_job_id: "local-1:task_new", status: "queued" }));
    const calls = fakeServer((call) =>
      call.method === "POST" ? create.promise : json({ videos: [] }),
    );
    renderAt("/p1");
    const prompt = screen.getByPlaceholderText("Describe the video you want to generate...");
    fireEvent.change(prompt, { target: { value: "  a red fox runs  " } });
    fireEvent.click(screen.getByRole("button", { name: "Generate" }));
    const busy = await screen.findByRole("button", { name: "Creating..." });
    expect(busy).toBeDisabled();
    await act(async () => create.release());
    const row = (await screen.findByText("“a red fox runs”")).closest("li")!;
    expect(within(row).getByText("QUEUED")).toBeTruthy();
    expect(within(row).getByRole("button", { name: "Check Status" })).toBeTruthy();
    expect(prompt).toHaveProperty("value", "");
    expect(screen.getByRole("heading", { name: "Jobs (1)" })).toBeTruthy();
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({ prompt: "a red fox runs" });
    const stored = JSON.parse(localStorage.getItem("jobs:p1")!);
    expect(stored[0]).toMatchObject({ sora_job_id: "local-1:task_new", final_r2_key: null });
  });

  it("offers a model choice only when the server offers several models", async () => {
    const calls = fakeServer((call) =>
      call.method === "POST" ? json({ sora_job_id: "sora-2:task_m" }) : json({ videos: [] }),
    );
    const { studio } = renderAt("/p1");
    expect(screen.queryByRole("combobox", { name: "Model" })).toBeNull();
    act(() => studio.configure({ apiBase: API, token: "secret", models: ["local-1", "sora-2"] }));
    const choice = screen.getByRole("combobox", { name: "Model" });
    expect(choice).toHaveProperty("value", "local-1");
    fireEvent.change(choice, { target: { value: "sora-2" } });
    expect(choice).toHaveProperty("value", "sora-2");
    fireEvent.change(screen.getByPlaceholderText("Describe the video you want to generate..."), {
      target: { value: "a heron" },
    });
    fireEvent.click(screen.getByRole("button", { name: "Generate" }));
    await screen.findByText("“a heron”");
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({
      prompt: "a heron",
      model: "sora-2",
    });
  });

  it("generates with Ctrl+Enter", async () => {
    const calls = fakeServer((call) =>
      call.method === "POST" ? json({ sora_job_id: "local-1:task_k" }) : json({ videos: [] }),
    );
    renderAt("/p1");
    const prompt = screen.getByLabelText("Prompt");
    fireEvent.change(prompt, { target: { value: "keyboard" } });
    fireEvent.keyDown(prompt, { key: "Enter", ctrlKey: true });
    await screen.findByText("“keyboard”");
    expect(calls.filter((c) => c.method === "POST")).toHaveLength(1);
  });

  it("cancels a running job, retries it as an equal job and removes it", async () => {
    storeJobs("p1", [
      job({ status: "running", progress: 40, model: "local-1", seconds: 8, size: "640x360" }),
    ]);
    const calls = fakeServer((call) => {
      if (call.url.endsWith("/cancel")) return json({ status: "error", error: "Cancelled" });
      if (call.method === "POST") return json({ sora_job_id: "local-1:task_b", status: "queued" });
      if (call.method === "DELETE") return json({});
      return json({ videos: [], jobs: [] });
    });
    renderAt("/p1");
    const first = () => screen.getByText("“a red fox”").closest("li")!;
    fireEvent.click(within(first()).getByRole("button", { name: "Cancel" }));
    await within(first()).findByText("Cancelled");
    expect(within(first()).getByText("ERROR")).toBeTruthy();
    expect(within(first()).queryByRole("button", { name: "Cancel" })).toBeNull();

    fireEvent.click(within(first()).getByRole("button", { name: "Retry" }));
    await screen.findByRole("heading", { name: "Jobs (2)" });
    expect(calls.find((c) => c.method === "POST" && !c.url.endsWith("/cancel"))?.body).toEqual({
      prompt: "a red fox",
      model: "local-1",
      seconds: 8,
      size: "640x360",
    });

    fireEvent.click(screen.getByRole("button", { name: "More for job local-1:task_a" }));
    fireEvent.click(screen.getByRole("menuitem", { name: "Remove" }));
    await screen.findByRole("heading", { name: "Jobs (1)" });
    expect(
      calls.some((c) => c.method === "DELETE" && c.url.endsWith("/jobs/sora/local-1%3Atask_a")),
    ).toBe(true);
  });

  it("shows a running job's progress and checks its status", async () => {
    storeJobs("p1", [job({ status: "running", progress: 40 })]);
    fakeServer((call) =>
      call.url.includes("/jobs/sora/")
        ? json({ status: "running", progress: 65 })
        : json({ videos: [] }),
    );
    renderAt("/p1");
    expect(screen.getAllByText(/RUNNING (40|65)%/)).toHaveLength(1);
    expect(screen.getByText("Generating video...")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Check Status" }));
    await screen.findByText("RUNNING 65%");
    expect(screen.getByRole("progressbar").getAttribute("aria-valuenow")).toBe("65");
  });

  it("plays a done job and saves it to the library", async () => {
    storeJobs("p1", [
      job({ status: "done", progress: 100, preview_url: "http://test.local/p.mp4" }),
    ]);
    let saved = false;
    const calls = fakeServer((call) => {
      if (call.url.endsWith("/save")) {
        saved = true;
        return json({ r2_key: VIDEO.key, public_url: VIDEO.public_url });
      }
      return json({ videos: saved ? [VIDEO] : [] });
    });
    const { container } = renderAt("/p1");
    const player = container.querySelector("video.player") as HTMLVideoElement;
    expect(player.controls).toBe(true);
    expect(screen.queryByRole("button", { name: "Check Status" })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Save to Library" }));
    expect(await screen.findByText("✓ Saved to library")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Save to Library" })).toBeNull();
    const card = (await screen.findByText("abcdefghijklmnopqrst")).closest<HTMLElement>(
      '[role="listitem"]',
    )!;
    expect(within(card).getByText("5.10 MB")).toBeTruthy();
    expect(within(card).getByText("10s")).toBeTruthy();
    expect(screen.getByRole("heading", { name: "Asset Library (1 videos)" })).toBeTruthy();
    expect(calls.find((c) => c.url.endsWith("/save"))).toMatchObject({
      url: `${API}/jobs/sora/local-1%3Atask_a/save`,
      body: { project_id: "p1", prompt: "a red fox" },
    });
    expect(JSON.parse(localStorage.getItem("jobs:p1")!)[0].final_r2_key).toBe(VIDEO.key);
  });

  it("shows Video unavailable for an asset without a public URL", async () => {
    fakeServer(() => json({ videos: [{ ...VIDEO, public_url: null }] }));
    renderAt("/p1");
    expect(await screen.findByText("Video unavailable")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Play" })).toBeDisabled();
  });

  it("keeps what was valid in a corrupted job list and says so", async () => {
    localStorage.setItem("jobs:p1", '[{"sora_job_id":"local-1:task_ok","prompt":"kept"}, 42]');
    fakeServer(() => json({ videos: [] }));
    renderAt("/p1");
    expect(screen.getByText("“kept”")).toBeTruthy();
    expect(screen.getByRole("alert").textContent).toContain("Failed to load dashboard data");
    const backup = Object.keys(localStorage).find((k) => k.startsWith("backup:jobs:p1:"));
    expect(localStorage.getItem(backup!)).toContain("42");
  });
});
