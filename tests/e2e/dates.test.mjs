// Dates as the browser formats them: the viewer's locale, and their time zone as it was at
// that date (not today's offset), for videos on both sides of a daylight-saving change.
import assert from "node:assert/strict";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launch, startServer } from "./harness.mjs";

let server, browser;
before(async () => {
  server = await startServer();
  const folder = join(server.data, "media/projects/dst");
  mkdirSync(folder, { recursive: true });
  // Dropped into the library by hand, with the times they were made.
  for (const [name, at] of [
    ["summer.mp4", "2026-07-01T04:30:00Z"],
    ["winter.mp4", "2026-01-15T04:30:00Z"],
  ]) {
    const file = join(folder, name);
    writeFileSync(file, Buffer.alloc(2048));
    utimesSync(file, new Date(at), new Date(at));
  }
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

async function cardDates(locale, timezoneId) {
  const context = await browser.newContext({ locale, timezoneId });
  const page = await context.newPage();
  await page.goto(`${server.url}/dst`);
  const cards = page.locator(".asset");
  await cards.nth(1).waitFor();
  const dates = {};
  for (const card of await cards.all()) {
    const text = await card.textContent();
    dates[text.includes("summer") ? "summer" : "winter"] = text;
  }
  await context.close();
  return dates;
}

test("New York: daylight time in July, standard time in January, each at its own date", async () => {
  const dates = await cardDates("en-US", "America/New_York");
  // 04:30 UTC is 00:30 EDT on 1 July, but 23:30 EST on 14 January.
  assert.match(dates.summer, /Jul 1, 2026/);
  assert.match(dates.winter, /Jan 14, 2026/);
});

test("Berlin in German: the user's locale and zone", async () => {
  const dates = await cardDates("de-DE", "Europe/Berlin");
  assert.match(dates.summer, /01\.07\.2026/);
  assert.match(dates.winter, /15\.01\.2026/);
});
