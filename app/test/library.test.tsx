import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { fakeServer, json } from "./fakeServer";
import { job, renderAt, storeJobs } from "./render";

const MEDIA = "http://test.local/media/projects/p1";

function video(name: string, size: number, at: string, prompt?: string) {
  return {
    key: `projects/p1/${name}.mp4`,
    size_bytes: size,
    last_modified: at,
    public_url: `${MEDIA}/${name}.mp4`,
    poster_url: `${MEDIA}/${name}.jpg`,
    ...(prompt ? { prompt } : {}),
  };
}

const VIDEOS = [
  video("local-1:task_kite", 3_000_000, "2026-11-21T10:03:00Z", "A red kite over the hills"),
  video("local-1:task_sea", 9_000_000, "2026-11-21T10:02:00Z", "blue sea at dawn"),
  video("dropped", 1_000_000, "2026-11-21T10:01:00Z"),
];

function titles(): string[] {
  return within(screen.getByRole("list", { name: "Saved videos" }))
    .getAllByRole("listitem")
    .map((card) => within(card).getByRole("heading").textContent!);
}

describe("asset library", () => {
  it("shows posters and loads a video only once its card is hovered", async () => {
    // jsdom plays nothing: these stand in for the browser's media element.
    const play = vi.spyOn(HTMLMediaElement.prototype, "play").mockResolvedValue();
    const pause = vi.spyOn(HTMLMediaElement.prototype, "pause").mockReturnValue();
    fakeServer(() => json({ videos: VIDEOS }));
    renderAt("/p1");
    const card = (await screen.findByText("kite")).closest<HTMLElement>('[role="listitem"]')!;
    const poster = card.querySelector("img.poster")!;
    expect(poster.getAttribute("src")).toBe(`${MEDIA}/local-1:task_kite.jpg`);
    expect(poster.getAttribute("loading")).toBe("lazy");
    expect(card.querySelector("video")).toBeNull();
    expect(play).not.toHaveBeenCalled();
    fireEvent.mouseEnter(card);
    const preview = within(card).getByLabelText("Preview of kite") as HTMLVideoElement;
    expect(preview.getAttribute("src")).toBe(`${MEDIA}/local-1:task_kite.mp4`);
    expect(preview.muted).toBe(true);
    expect(play.mock.contexts).toEqual([preview]);
    fireEvent.mouseLeave(card);
    expect(pause.mock.contexts.at(-1)).toBe(preview);
    expect(within(card).getByLabelText("Preview of kite")).toBe(preview);
    expect(screen.queryByLabelText("Preview of sea")).toBeNull();
    play.mockRestore();
    pause.mockRestore();
    fireEvent.click(within(card).getByRole("button", { name: "More for kite" }));
    const download = within(card).getByRole("menuitem", { name: "Download" });
    expect(download.getAttribute("download")).toBe("A-red-kite-over-the-hills.mp4");
    expect(card.getAttribute("aria-setsize")).toBe("3");
  });

  it("searches by prompt and title and sorts", async () => {
    fakeServer(() => json({ videos: VIDEOS }));
    renderAt("/p1");
    await screen.findByText("kite");
    expect(titles()).toEqual(["kite", "sea", "dropped"]);
    const search = screen.getByRole("searchbox", { name: "Search videos" });
    fireEvent.change(search, { target: { value: "DAWN" } });
    expect(titles()).toEqual(["sea"]);
    expect(screen.getByRole("status", { name: "Search results" }).textContent).toBe(
      "1 of 3 videos match",
    );
    expect(screen.getByRole("heading", { name: "Asset Library (3 videos)" })).toBeTruthy();
    fireEvent.change(search, { target: { value: "drop" } });
    expect(titles()).toEqual(["dropped"]);
    fireEvent.change(search, { target: { value: "nothing like it" } });
    expect(screen.getByText("No videos match “nothing like it”.")).toBeTruthy();
    fireEvent.change(search, { target: { value: "" } });
    fireEvent.change(screen.getByRole("combobox", { name: "Sort" }), {
      target: { value: "largest" },
    });
    expect(titles()).toEqual(["sea", "kite", "dropped"]);
    fireEvent.change(screen.getByRole("combobox", { name: "Sort" }), {
      target: { value: "oldest" },
    });
    expect(titles()).toEqual(["dropped", "sea", "kite"]);
  });

  it("deletes a video after confirmation and clears its job's tick", async () => {
    storeJobs("p1", [
      job({
        sora_job_id: "local-1:task_kite",
        status: "done",
        progress: 100,
        preview_url: "http://test.local/p.mp4",
        final_r2_key: "projects/p1/local-1:task_kite.mp4",
      }),
    ]);
    let videos = VIDEOS;
    const calls = fakeServer((call) => {
      if (call.method === "DELETE") {
        videos = videos.filter(
          (v) => !call.url.endsWith(encodeURIComponent(v.key.slice("projects/p1/".length))),
        );
        return json({});
      }
      return json({ videos });
    });
    renderAt("/p1");
    await screen.findByText("kite");
    expect(screen.getByText("✓ Saved to library")).toBeTruthy();
    const confirm = vi.spyOn(window, "confirm").mockReturnValueOnce(false);
    const remove = () => {
      fireEvent.click(screen.getByRole("button", { name: "More for kite" }));
      fireEvent.click(screen.getByRole("menuitem", { name: /^Delete/ }));
    };
    remove();
    expect(confirm).toHaveBeenCalledOnce();
    expect(calls.some((c) => c.method === "DELETE")).toBe(false);
    confirm.mockReturnValueOnce(true);
    remove();
    expect(await screen.findByRole("button", { name: "Save to Library" })).toBeTruthy();
    expect(screen.queryByText("kite")).toBeNull();
    expect(calls.find((c) => c.method === "DELETE")?.url).toBe(
      "http://test.local/api/projects/p1/assets/local-1%3Atask_kite.mp4",
    );
    confirm.mockRestore();
  });

  it("is handed only the cards near the screen by the core, and follows the scroll", async () => {
    const COUNT = 300;
    const many = Array.from({ length: COUNT }, (_, i) =>
      video(`v${i}`, 1_000 + i, new Date(Date.UTC(2026, 10, 21, 10, 0, COUNT - i)).toISOString()),
    );
    fakeServer(() => json({ videos: many }));
    const { studio } = renderAt("/p1");
    await screen.findByText("v0");
    const cards = () => studio.view("cards") as { first: number; assets: unknown[] };
    expect(cards().assets.length).toBeLessThanOrEqual(100);
    expect((studio.view("library") as { assets: unknown[] }).assets.length).toBe(COUNT);
    const grid = screen.getByRole("list", { name: "Saved videos" });
    expect(grid.querySelector("[role=listitem]")!.getAttribute("aria-setsize")).toBe("300");

    // The grid scrolled far up past the top of the viewport (jsdom lays nothing out: one
    // column of rows of the estimated height).
    vi.spyOn(grid, "getBoundingClientRect").mockReturnValue(
      DOMRect.fromRect({ x: 0, y: -250 * 274, width: 800, height: COUNT * 274 }),
    );
    window.dispatchEvent(new Event("scroll"));
    const shown = () => [...grid.querySelectorAll<HTMLElement>("[role=listitem]")];
    await waitFor(() =>
      expect(Number(shown()[0]!.getAttribute("aria-posinset"))).toBeGreaterThan(240),
    );
    for (const card of shown()) {
      const at = Number(card.getAttribute("aria-posinset"));
      expect(within(card).getByRole("heading").textContent).toBe(`v${at - 1}`);
    }
    expect(cards().first).toBeGreaterThan(200);
    expect(cards().assets.length).toBeLessThan(30);
  });
});
