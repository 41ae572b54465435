import assert from "node:assert/strict";
import { rmSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { screenshot, serverAndPage, startServer, waitForDone, waitUntil } from "./harness.mjs";

const t = serverAndPage();

const banner = () => t.page.getByRole("alert").first();

test("a wrong token: Failed to load assets", async () => {
  await t.page.route("**/config.json", (route) =>
    route.fulfill({ json: { apiBase: "/api", token: "wrong" } }),
  );
  await t.page.goto(`${t.server.url}/errors`);
  await banner().getByText("Failed to load assets").waitFor();
  assert.match(await banner().textContent(), /Failed to get assets: Unauthorized/);
  await screenshot(t.page, "error-banner");
  await t.page.unroute("**/config.json");
});

test("a t.server that is down: Failed to load assets", async () => {
  const down = await startServer();
  await t.page.goto(`${down.url}/errors`);
  await t.page.getByText("No videos saved yet.", { exact: false }).waitFor();
  await down.stop();
  await t.page.evaluate(() => window.studio.loadAssets().catch(() => {}));
  await banner().getByText("Failed to load assets").waitFor();
});

test("creation failing: Failed to create generation job", async () => {
  await t.page.goto(`${t.server.url}/errors`);
  await t.page.getByLabel("Prompt").fill("x".repeat(4001));
  await t.page.getByRole("button", { name: "Generate" }).click();
  await banner().getByText("Failed to create generation job").waitFor();
  await screenshot(t.page, "error-create");
  assert.equal((await t.page.getByLabel("Prompt").inputValue()).length, 4001, "the prompt is kept");
});

// Fails on Generate being on again at once after a 429: the server's Retry-After was ignored.
test("a create refused for a while keeps Generate off, counting down, until the wait is over", async () => {
  await t.page.goto(`${t.server.url}/errors-429`);
  await t.page.route("**/api/projects/errors-429/jobs", (route) =>
    route.request().method() === "POST"
      ? route.fulfill({
          status: 429,
          headers: { "retry-after": "3" },
          json: {
            error: { code: "too_many_requests", message: "Busy", retry_after_s: 3 },
          },
        })
      : route.continue(),
  );
  await t.page.getByLabel("Prompt").fill("a lantern in the snow");
  const generate = t.page.getByRole("button", { name: "Generate" });
  await generate.click();
  await banner().getByText("Failed to create generation job").waitFor();
  await t.page.getByText(/^Generate can be tried again in [1-3] s$/).waitFor();
  assert.ok(await generate.isDisabled(), "Generate waits");
  await t.page.unroute("**/api/projects/errors-429/jobs");
  await waitUntil(() => generate.isEnabled());
  await generate.click();
  await t.page.locator("li.job").getByText("a lantern in the snow").waitFor();
});

test("saving failing: Failed to save video to library; missing metadata: Metadata not found", async () => {
  await t.page.goto(`${t.server.url}/errors`);
  await t.page.getByLabel("Prompt").fill("a calm ocean");
  await t.page.getByRole("button", { name: "Generate" }).click();
  await waitForDone(t.page);
  const previews = join(t.server.data, "media/previews");
  for (const file of readdirSync(previews)) rmSync(join(previews, file));
  await t.page.getByRole("button", { name: "Save to Library" }).click();
  await banner().getByText("Failed to save video to library").waitFor();
  await screenshot(t.page, "error-save");

  await t.page.getByLabel("Prompt").fill("a second calm ocean");
  await t.page.getByRole("button", { name: "Generate" }).click();
  await t.page.getByRole("heading", { name: "Jobs (2)" }).waitFor();
  await waitForDone(t.page);
  await t.page.locator("li.job").first().getByRole("button", { name: "Save to Library" }).click();
  await t.page.locator(".asset").first().waitFor();
  const library = join(t.server.data, "media/projects/errors");
  for (const file of readdirSync(library).filter((f) => f.endsWith(".json")))
    rmSync(join(library, file));
  await t.page.locator(".asset").first().getByRole("button", { name: "Info" }).click();
  await t.page.getByRole("dialog").getByText("Metadata not found").first().waitFor();
  await screenshot(t.page, "metadata-not-found");
});

test("a corrupted job list: the dashboard loads what is valid and keeps the text", async () => {
  await t.page.goto(`${t.server.url}/`);
  const raw =
    '[{"sora_job_id":"local-1:task_kept","status":"error","prompt":"still here"}, {"broken": true';
  await t.page.evaluate((value) => localStorage.setItem("jobs:corrupt", value), raw);
  await t.page.goto(`${t.server.url}/corrupt`);
  await banner().getByText("Failed to load dashboard data").waitFor();
  await screenshot(t.page, "corrupt-storage");
  const backups = await t.page.evaluate(() =>
    Object.keys(localStorage)
      .filter((k) => k.startsWith("backup:jobs:corrupt:"))
      .map((k) => localStorage.getItem(k)),
  );
  assert.deepEqual(backups, [raw]);
  assert.equal(
    await t.page.locator("li.job").count(),
    0,
    "the unparseable list had no readable entries",
  );
  await t.page.evaluate(() =>
    localStorage.setItem(
      "jobs:corrupt",
      '[{"sora_job_id":"local-1:task_kept","status":"error","prompt":"still here"}, 7]',
    ),
  );
  await t.page.reload();
  await t.page.getByText("“still here”").waitFor();
});

// Fails on a page that awaited the core with nothing to catch it: a WebAssembly that does not
// load left a white page.
test("a core that cannot load says so and offers Retry", async () => {
  await t.page.route("**/*.wasm", (route) => route.abort());
  await t.page.goto(`${t.server.url}/errors`);
  const failure = t.page.getByRole("alert");
  await failure.getByRole("heading", { name: "Studio could not start" }).waitFor();
  await t.page.unroute("**/*.wasm");
  await failure.getByRole("button", { name: "Retry" }).click();
  await t.page.getByRole("button", { name: "Generate" }).waitFor();
});

// Fails on a review page that handled only a link that is gone: any other failure (the server
// down, a 503) left "Review" and a bare message, with no way to try again but a reload.
test("a review link that fails to load says why and offers Retry", async () => {
  await t.page.route("**/api/review/**", (route) =>
    route.fulfill({
      status: 503,
      contentType: "application/json",
      body: JSON.stringify({ error: { code: "unavailable", message: "Try again in a moment" } }),
    }),
  );
  await t.page.goto(`${t.server.url}/review/not-a-real-token`);
  const failure = t.page.getByRole("alert");
  await failure.getByText("This review could not be loaded").waitFor();
  assert.match(await failure.textContent(), /Try again in a moment/);
  await t.page.unroute("**/api/review/**");
  await t.page.getByRole("button", { name: "Retry" }).click();
  // Asked again, the server answers for this unknown token: the link is not valid.
  await t.page.getByText("This review link is no longer valid.").waitFor();
});
