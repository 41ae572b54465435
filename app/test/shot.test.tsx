import { act, fireEvent, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { fakeServer, json } from "./fakeServer";
import { API, renderAt } from "./render";

const ALL = { first_frame: true, last_frame: true, references: 4, extend: true, remix: true };
const NONE = { first_frame: false, last_frame: false, references: 0, extend: false, remix: false };
const REFERENCE = {
  id: "ref_01aaaaaaaaaaaaaaaaaaaaaaaa",
  width: 1000,
  height: 1000,
  content_type: "image/png",
  size_bytes: 2048,
  url: "http://test.local/media/projects/p1/references/ref_01aaaaaaaaaaaaaaaaaaaaaaaa.png",
  created_at: "2026-11-25T08:00:00Z",
  source: null,
};

/** A server offering local-1 (every input) and sora-2 (none), with one reference image. */
function server() {
  return fakeServer((call) => {
    if (call.url.endsWith("/models")) {
      return json({
        models: [
          { id: "local-1", inputs: ALL },
          { id: "sora-2", inputs: NONE },
        ],
      });
    }
    if (call.url.endsWith("/references")) return json({ references: [REFERENCE] });
    if (call.method === "POST") return json({ sora_job_id: "local-1:task_s" });
    return json({ videos: [] });
  });
}

describe("shot inputs", () => {
  it("offers the roles the model takes, notes the fit and sends them with Generate", async () => {
    const calls = server();
    const { studio } = renderAt("/p1");
    act(() => studio.configure({ apiBase: API, token: "secret", models: ["local-1", "sora-2"] }));
    const strip = await screen.findByRole("list", { name: "Reference images" });
    const role = await within(strip).findByRole("combobox", { name: `Role of ${REFERENCE.id}` });
    const options = within(role)
      .getAllByRole("option")
      .map((o) => o.textContent);
    expect(options).toEqual(["Not used", "First frame", "Last frame", "Reference (up to 4)"]);

    fireEvent.change(role, { target: { value: "first_frame" } });
    expect(screen.getByText(/1 image of another shape will be fitted to 1280x720/)).toBeTruthy();
    fireEvent.change(screen.getByRole("combobox", { name: "Fit" }), { target: { value: "pad" } });
    fireEvent.change(screen.getByLabelText("Prompt"), { target: { value: "a kite" } });
    fireEvent.click(screen.getByRole("button", { name: "Generate" }));
    await screen.findByText("“a kite”");
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({
      prompt: "a kite",
      fit: "pad",
      inputs: [{ reference: REFERENCE.id, role: "first_frame" }],
    });
    expect(role).toHaveProperty("value", "");
  });

  it("offers no roles for a model that takes no pictures", async () => {
    server();
    const { studio } = renderAt("/p1");
    act(() => studio.configure({ apiBase: API, token: "secret", models: ["local-1", "sora-2"] }));
    await screen.findByRole("combobox", { name: `Role of ${REFERENCE.id}` });
    fireEvent.change(screen.getByRole("combobox", { name: "Model" }), {
      target: { value: "sora-2" },
    });
    expect(screen.queryByRole("combobox", { name: `Role of ${REFERENCE.id}` })).toBeNull();
    expect(screen.getByRole("button", { name: "Add image" })).toBeTruthy();
  });
});
