// The price before Generate: a team prices its own engine with STUDIO_PRICES; the Generate
// button shows what the shot will cost as the takes change, asks first above $5, and the job
// the server makes carries the same estimate.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launch, startServer, waitUntil } from "./harness.mjs";

const t = {};
before(async () => {
  const prices = join(mkdtempSync(join(tmpdir(), "studio-prices-")), "prices.toml");
  writeFileSync(prices, '[models."local-1"]\nusd_per_second = 0.10\nseen = "2026-11-01"\n');
  t.server = await startServer({ args: ["--prices", prices] });
  t.browser = await launch();
  t.page = await (await t.browser.newContext()).newPage();
});
after(async () => {
  await t.browser?.close();
  await t.server?.stop();
});

test("Generate shows the estimate, asks above the threshold, and the job keeps it", async () => {
  const page = t.page;
  await page.goto(`${t.server.url}/priced`);
  await page
    .getByPlaceholder("Describe the video you want to generate...")
    .fill("A slow pan over a harbour at dawn");
  const generate = page.locator("form button[type=submit]");
  // local-1 makes 10 s by default: $1.00 a take.
  await waitUntil(async () => (await generate.textContent()) === "Generate · $1.00");
  const takes = page.getByRole("combobox", { name: "Takes" });
  await takes.selectOption("4");
  await waitUntil(async () => (await generate.textContent()) === "Generate · $4.00");

  // Above $5 Generate asks first; declining makes nothing.
  await takes.selectOption("8");
  await waitUntil(async () => (await generate.textContent()) === "Generate · $8.00");
  const asked = [];
  page.once("dialog", (dialog) => {
    asked.push(dialog.message());
    dialog.dismiss();
  });
  await generate.click();
  await waitUntil(() => asked.length === 1);
  assert.equal(asked[0], "Generate for 8 takes at about $8.00?");
  assert.equal(await page.locator("li.job").count(), 0, "nothing was made");

  await takes.selectOption("1");
  await generate.click();
  await page.locator("li.job").first().waitFor();
  const id = await page.locator("li.job").first().getAttribute("data-job-id");
  const job = await page.evaluate((jobId) => window.studio.checkStatus(jobId), id);
  assert.deepEqual(job.cost, {
    estimate_usd: 1,
    actual_usd: null,
    source: "price table",
    seen: "2026-11-01",
  });
});
