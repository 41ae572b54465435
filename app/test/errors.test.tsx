import { fireEvent, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { fakeServer, json } from "./fakeServer";
import { job, renderAt, storeJobs } from "./render";

const failure = json({ error: { code: "x", message: "no" } }, 500, "Internal Server Error");

describe("error banners", () => {
  it("Failed to load assets", async () => {
    fakeServer(() => json({}, 401, "Unauthorized"));
    renderAt("/p1");
    const banner = await screen.findByRole("alert");
    expect(banner.textContent).toContain("Failed to load assets");
    expect(banner.textContent).toContain("Failed to get assets: Unauthorized");
    fireEvent.click(screen.getByRole("button", { name: "Dismiss" }));
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("Failed to create generation job, keeping the prompt", async () => {
    fakeServer((call) => (call.method === "POST" ? failure : json({ videos: [] })));
    renderAt("/p1");
    const prompt = screen.getByLabelText("Prompt");
    fireEvent.change(prompt, { target: { value: "keep me" } });
    fireEvent.click(screen.getByRole("button", { name: "Generate" }));
    expect((await screen.findByRole("alert")).textContent).toContain(
      "Failed to create generation job",
    );
    expect(prompt).toHaveProperty("value", "keep me");
  });

  it("Failed to check job status", async () => {
    storeJobs("p1", [job({})]);
    fakeServer((call) => (call.url.includes("/jobs/sora/") ? failure : json({ videos: [] })));
    renderAt("/p1");
    fireEvent.click(screen.getByRole("button", { name: "Check Status" }));
    expect((await screen.findByRole("alert")).textContent).toContain("Failed to check job status");
  });

  it("Failed to save video to library", async () => {
    storeJobs("p1", [job({ status: "done", preview_url: "http://test.local/p.mp4" })]);
    fakeServer((call) => (call.url.endsWith("/save") ? failure : json({ videos: [] })));
    renderAt("/p1");
    fireEvent.click(screen.getByRole("button", { name: "Save to Library" }));
    expect((await screen.findByRole("alert")).textContent).toContain(
      "Failed to save video to library",
    );
    expect(screen.getByRole("button", { name: "Save to Library" })).toBeEnabled();
  });
});
