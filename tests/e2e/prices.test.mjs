// The price before Generate: a team prices its own engine with STUDIO_PRICES; the Generate
// button shows what the shot will cost as the size, seconds and takes change, asks first above $5,
// and the job the server makes carries the same estimate. A project's budget stops a job past
// it with a banner of the figures, and the Spend panel shows what the day cost.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launch, startServer, TOKEN, waitForDone, waitUntil } from "./harness.mjs";

const t = {};
before(async () => {
  const prices = join(mkdtempSync(join(tmpdir(), "studio-prices-")), "prices.toml");
  writeFileSync(
    prices,
    '[models."local-1"]\nseen = "2026-11-01"\n' +
      '[models."local-1".by_resolution]\n"480p" = 0.05\n"720p" = 0.10\n"1080p" = 0.12\n',
  );
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

test("A budget stops a job past it with the figures, and the Spend panel shows the day", async () => {
  const page = t.page;
  const budget = await fetch(`${t.server.url}/api/projects/capped/budget`, {
    method: "PUT",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ monthly_usd: 0.5 }),
  });
  assert.equal(budget.status, 200);
  await page.goto(`${t.server.url}/capped`);
  await page
    .getByPlaceholder("Describe the video you want to generate...")
    .fill("A paper kite over a grey beach");
  const generate = page.locator("form button[type=submit]");
  await waitUntil(async () => (await generate.textContent()) === "Generate · $1.00");
  const seconds = page.getByRole("combobox", { name: "Seconds" });
  assert.equal(await seconds.locator("option").first().textContent(), "Default (10)");
  await seconds.selectOption("2");
  await waitUntil(async () => (await generate.textContent()) === "Generate · $0.20");
  // The size's resolution tier prices it: 480p at $0.05 a second.
  const size = page.getByRole("combobox", { name: "Size" });
  assert.equal(await size.locator("option").first().textContent(), "Default (1280x720)");
  await size.selectOption("854x480");
  await waitUntil(async () => (await generate.textContent()) === "Generate · $0.10");
  await size.selectOption("");
  await waitUntil(async () => (await generate.textContent()) === "Generate · $0.20");
  const takes = page.getByRole("combobox", { name: "Takes" });
  await takes.selectOption("3");
  await waitUntil(async () => (await generate.textContent()) === "Generate · $0.60");

  // Three takes at $0.20 pass the $0.50 cap: refused, with the figures, and nothing is made.
  await generate.click();
  const banner = page.getByRole("alert");
  await banner.waitFor();
  assert.equal(
    await banner.locator("p").textContent(),
    "Failed to create generation job" +
      "Over budget: $0.00 of the monthly $0.50 is committed, and this would cost $0.60",
  );
  assert.equal(await page.locator("li.job").count(), 0, "nothing was made");

  await takes.selectOption("1");
  await generate.click();
  await page.locator("li.job").first().waitFor();
  await waitForDone(page);

  await page.getByRole("button", { name: "Spend" }).click();
  const panel = page.getByRole("region", { name: "Spend" });
  await panel.waitFor();
  // Opened, the panel has the focus.
  const focused = () => page.evaluate(() => document.activeElement?.textContent);
  await waitUntil(
    async () => (await focused()) === "Spend" && (await panel.locator(":focus").count()) === 1,
  );
  await waitUntil(
    async () =>
      (await panel.getByTestId("spend-month").textContent()) === "This month: $0.20 of $0.50",
  );
  assert.equal(await panel.getByTestId("spend-total").textContent(), "Last 30 days: $0.20");
  assert.equal(
    await panel.getByRole("meter", { name: "Budget used" }).getAttribute("aria-valuenow"),
    "0.4",
  );
  const today = new Date().toISOString().slice(0, 10);
  const bars = await panel.locator("svg rect title").allTextContents();
  assert.equal(bars.length, 30, "a bar a day");
  assert.equal(bars[29], `${today}: $0.20`);
  const row = panel.locator("tbody tr");
  assert.deepEqual(await row.locator("td").allTextContents(), ["local-1", "1", "2", "$0.20"]);
  // Closed, the focus is back on the Spend button.
  await panel.getByRole("button", { name: "Close" }).click();
  await panel.waitFor({ state: "detached" });
  assert.equal(
    await page.evaluate(() => document.activeElement?.getAttribute("aria-expanded")),
    "false",
  );
  assert.equal(await focused(), "Spend");
});
