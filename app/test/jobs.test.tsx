import { screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { fakeServer, json } from "./fakeServer";
import { job, renderAt, storeJobs } from "./render";

const COUNT = 500;

function rendered(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>("li.job")];
}

describe("the job list", () => {
  it("keeps only the rows near the screen in the DOM, and follows the scroll", async () => {
    fakeServer(() => json({ jobs: [], videos: [] }));
    const jobs = Array.from({ length: COUNT }, (_, i) =>
      job({
        sora_job_id: `local-1:task_${String(i).padStart(4, "0")}`,
        status: "error",
        error: `failed ${i}`,
        created_at: new Date(Date.UTC(2026, 10, 21, 10, 0, COUNT - i)).toISOString(),
      }),
    );
    storeJobs("p1", jobs);
    renderAt("/p1");
    await screen.findByText(`Jobs (${COUNT})`);
    const first = rendered();
    expect(first.length).toBeGreaterThan(5);
    expect(first.length).toBeLessThan(60);
    expect(first[0]!.getAttribute("aria-posinset")).toBe("1");
    expect(first[0]!.getAttribute("aria-setsize")).toBe(String(COUNT));
    const list = document.querySelector<HTMLElement>("ul.jobs")!;
    // The rows left out are stood in for by padding, so the page keeps its height.
    expect(parseFloat(list.style.paddingBottom)).toBeGreaterThan(COUNT * 100);

    // The list scrolled far up past the top of the viewport (jsdom lays nothing out).
    vi.spyOn(list, "getBoundingClientRect").mockReturnValue(
      DOMRect.fromRect({ x: 0, y: -50_000, width: 800, height: COUNT * 192 }),
    );
    window.dispatchEvent(new Event("scroll"));
    await waitFor(() =>
      expect(Number(rendered()[0]!.getAttribute("aria-posinset"))).toBeGreaterThan(200),
    );
    const moved = rendered();
    const at = Number(moved[0]!.getAttribute("aria-posinset"));
    expect(at).toBeLessThan(300);
    expect(moved.length).toBeLessThan(60);
    // Newest first: the job at place p is job p - 1.
    expect(moved[0]!.textContent).toMatch(new RegExp(`failed ${at - 1}(?!\\d)`));
    expect(parseFloat(list.style.paddingTop)).toBeGreaterThan(40_000);
  });
});
