import { fireEvent, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { fakeServer, json } from "./fakeServer";
import { renderAt } from "./render";

const VIDEO = {
  key: "projects/p1/local-1:task_abc.mp4",
  size_bytes: 1_048_576,
  last_modified: "2026-11-21T10:03:00Z",
  public_url: "http://test.local/media/projects/p1/local-1:task_abc.mp4",
};

function serve(metadata: ReturnType<typeof json>) {
  return fakeServer((call) => (call.url.endsWith(".json") ? metadata : json({ videos: [VIDEO] })));
}

async function openModal() {
  renderAt("/p1");
  fireEvent.click(await screen.findByRole("button", { name: "Info" }));
  return screen.findByRole("dialog");
}

describe("Video Metadata modal", () => {
  it("shows basic info, the prompt and the technical details", async () => {
    const calls = serve(json({ prompt: "a quiet lake", fps: 24 }));
    const dialog = await openModal();
    expect(screen.getByRole("heading", { name: "Video Metadata" })).toBeTruthy();
    expect(dialog.textContent).toContain("Basic Info");
    expect(dialog.textContent).toContain("local-1:task_abc.mp4");
    expect(dialog.textContent).toContain("1.00 MB");
    expect(await screen.findByText("a quiet lake")).toBeTruthy();
    expect(dialog.querySelector("pre")?.textContent).toContain('"fps": 24');
    const metadataCall = calls.find((c) => c.url.endsWith(".json"))!;
    expect(metadataCall.url).toBe("http://test.local/media/projects/p1/local-1:task_abc.json");
    expect(metadataCall.auth).toBeNull();
  });

  it("closes with the close button, a click outside and Escape", async () => {
    serve(json({ prompt: "p" }));
    await openModal();
    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.queryByRole("dialog")).toBeNull();

    fireEvent.click(screen.getByRole("button", { name: "Info" }));
    const dialog = await screen.findByRole("dialog");
    fireEvent.click(dialog);
    expect(screen.queryByRole("dialog")).not.toBeNull();
    fireEvent.click(screen.getByTestId("modal-overlay"));
    expect(screen.queryByRole("dialog")).toBeNull();

    fireEvent.click(screen.getByRole("button", { name: "Info" }));
    await screen.findByRole("dialog");
    fireEvent.keyDown(document, { key: "Escape" });
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("shows Metadata not found when the .json is missing", async () => {
    serve(json({}, 404, "Not Found"));
    await openModal();
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe("Metadata not found"));
  });

  it("shows Failed to load metadata on any other failure", async () => {
    serve(json({}, 500, "Server Error"));
    await openModal();
    await waitFor(() =>
      expect(screen.getByRole("alert").textContent).toBe("Failed to load metadata"),
    );
  });
});
