import assert from "node:assert/strict";
import { rmSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launch, screenshot, startServer, waitForDone } from "./harness.mjs";

let server, browser, page;

before(async () => {
  server = await startServer();
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const banner = () => page.getByRole("alert").first();

test("a wrong token: Failed to load assets", async () => {
  await page.route("**/config.json", (route) =>
    route.fulfill({ json: { apiBase: "/api", token: "wrong" } }),
  );
  await page.goto(`${server.url}/errors`);
  await banner().getByText("Failed to load assets").waitFor();
  assert.match(await banner().textContent(), /Failed to get assets: Unauthorized/);
  await screenshot(page, "error-banner");
  await page.unroute("**/config.json");
});

test("a server that is down: Failed to load assets", async () => {
  const down = await startServer();
  await page.goto(`${down.url}/errors`);
  await page.getByText("No videos saved yet.", { exact: false }).waitFor();
  await down.stop();
  await page.evaluate(() => window.studio.loadAssets().catch(() => {}));
  await banner().getByText("Failed to load assets").waitFor();
});

test("creation failing: Failed to create generation job", async () => {
  await page.goto(`${server.url}/errors`);
  await page.getByLabel("Prompt").fill("x".repeat(4001));
  await page.getByRole("button", { name: "Generate" }).click();
  await banner().getByText("Failed to create generation job").waitFor();
  assert.equal((await page.getByLabel("Prompt").inputValue()).length, 4001, "the prompt is kept");
});

test("saving failing: Failed to save video to library; missing metadata: Metadata not found", async () => {
  await page.goto(`${server.url}/errors`);
  await page.getByLabel("Prompt").fill("a calm ocean");
  await page.getByRole("button", { name: "Generate" }).click();
  await waitForDone(page);
  const previews = join(server.data, "media/previews");
  for (const file of readdirSync(previews)) rmSync(join(previews, file));
  await page.getByRole("button", { name: "Save to Library" }).click();
  await banner().getByText("Failed to save video to library").waitFor();

  await page.getByLabel("Prompt").fill("a second calm ocean");
  await page.getByRole("button", { name: "Generate" }).click();
  await page.getByRole("heading", { name: "Jobs (2)" }).waitFor();
  await waitForDone(page);
  await page.locator("li.job").first().getByRole("button", { name: "Save to Library" }).click();
  await page.locator("li.asset").first().waitFor();
  const library = join(server.data, "media/projects/errors");
  for (const file of readdirSync(library).filter((f) => f.endsWith(".json")))
    rmSync(join(library, file));
  await page.locator("li.asset").first().getByRole("button", { name: "Info" }).click();
  await page.getByRole("dialog").getByText("Metadata not found").first().waitFor();
});

test("a corrupted job list: the dashboard loads what is valid and keeps the text", async () => {
  await page.goto(`${server.url}/`);
  const raw =
    '[{"sora_job_id":"local-1:task_kept","status":"error","prompt":"still here"}, {"broken": true';
  await page.evaluate((value) => localStorage.setItem("jobs:corrupt", value), raw);
  await page.goto(`${server.url}/corrupt`);
  await banner().getByText("Failed to load dashboard data").waitFor();
  const backups = await page.evaluate(() =>
    Object.keys(localStorage)
      .filter((k) => k.startsWith("backup:jobs:corrupt:"))
      .map((k) => localStorage.getItem(k)),
  );
  assert.deepEqual(backups, [raw]);
  assert.equal(
    await page.locator("li.job").count(),
    0,
    "the unparseable list had no readable entries",
  );
  await page.evaluate(() =>
    localStorage.setItem(
      "jobs:corrupt",
      '[{"sora_job_id":"local-1:task_kept","status":"error","prompt":"still here"}, 7]',
    ),
  );
  await page.reload();
  await page.getByText("“still here”").waitFor();
});
