// The Asset Library at work: posters, hover play, search, sort, delete and a dropped-in video.
import assert from "node:assert/strict";
import { copyFileSync, existsSync, linkSync, mkdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  playInSync,
  screenshot,
  serverAndPage,
  TOKEN,
  waitUntil,
  fromMenu,
  savedVideo,
} from "./harness.mjs";

const t = serverAndPage({ width: 1440, height: 900 });
const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

const saved = (project, prompt, seconds) => savedVideo(t.server, project, prompt, seconds);
const folder = (project) => join(t.server.data, "media/projects", project);
const titles = () => t.page.locator(".asset .asset-title").allTextContents();

test("a card plays its video on hover and stops when the pointer leaves", async () => {
  const id = await saved("hover", "a lighthouse beam sweeping the fog");
  const videoRequests = [];
  t.page.on("request", (r) => r.url().endsWith(".mp4") && videoRequests.push(r.url()));
  await t.page.goto(`${t.server.url}/hover`);
  const card = t.page.locator(".asset").first();
  await card.waitFor();
  assert.equal(
    await card.locator("img.poster").getAttribute("src"),
    `${t.server.url}/media/projects/hover/${id}.jpg`,
  );
  await waitUntil(() => card.locator("img.poster").evaluate((img) => img.naturalWidth === 480));
  assert.equal(await card.locator("video").count(), 0, "no video element before a hover");
  assert.deepEqual(videoRequests, [], "no video bytes before a hover");
  await card.hover();
  const video = card.locator("video");
  await waitUntil(() => video.evaluate((v) => !v.paused && v.currentTime > 0));
  await t.page.mouse.move(0, 0);
  await waitUntil(() => video.evaluate((v) => v.paused));
  assert.ok(videoRequests.length > 0, "the hover loaded the video");
});

// Fails on playing every focused or hovered card: a visitor who asked for reduced motion got
// moving previews all the same.
test("with reduced motion a focused or hovered card shows its picture, still", async () => {
  await t.page.emulateMedia({ reducedMotion: "reduce" });
  await t.page.goto(`${t.server.url}/hover`);
  const card = t.page.locator(".asset").first();
  await card.focus();
  const video = card.locator("video");
  await waitUntil(() => video.evaluate((v) => v.readyState >= 2));
  await card.hover();
  assert.ok(await video.evaluate((v) => v.paused && v.currentTime === 0), "not played");
  await t.page.emulateMedia({ reducedMotion: null });
});

// Fails on a dialog that Tab could leave: Tab went on to the page behind the open Info dialog.
test("Tab stays in the Info dialog, the page behind is inert, and Escape gives focus back", async () => {
  await t.page.goto(`${t.server.url}/hover`);
  const info = t.page.locator(".asset").first().getByRole("button", { name: "Info" });
  await info.click();
  const dialog = t.page.getByRole("dialog");
  await dialog.waitFor();
  const inert = () => info.evaluate((button) => button.closest("[inert]") !== null);
  assert.ok(await inert(), "the page behind is inert");
  for (let press = 1; press <= 25; press++) {
    await t.page.keyboard.press(press % 5 === 0 ? "Shift+Tab" : "Tab");
    const inside = await dialog.evaluate((d) => d.contains(document.activeElement));
    assert.ok(inside, `focus left the dialog at press ${press}`);
  }
  await t.page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  assert.ok(await info.evaluate((button) => button === document.activeElement), "focus is back");
  assert.ok(!(await inert()));
});

test("search by prompt and title, sort by date and size", async () => {
  for (const prompt of ["red kite over hills", "blue sea at dawn", "green forest path"]) {
    await saved("find", prompt);
  }
  // A larger video dropped in by hand, older than the rest.
  const drop = join(folder("find"), "holiday.mp4");
  const files = (await import("node:fs")).readdirSync(folder("find"));
  copyFileSync(
    join(
      folder("find"),
      files.find((f) => f.endsWith(".mp4")),
    ),
    drop,
  );
  const { appendFileSync } = await import("node:fs");
  appendFileSync(drop, Buffer.alloc(200_000));
  utimesSync(drop, new Date("2026-01-01T00:00:00Z"), new Date("2026-01-01T00:00:00Z"));

  await t.page.goto(`${t.server.url}/find`);
  await t.page.getByRole("heading", { name: "Asset Library (4 videos)" }).waitFor();
  assert.equal((await titles()).at(-1), "holiday", "newest first; the dropped-in one is oldest");
  const search = t.page.getByRole("searchbox", { name: "Search videos" });
  await search.fill("DAWN");
  await waitUntil(async () => (await titles()).length === 1);
  assert.equal(
    await t.page
      .locator(".asset")
      .getAttribute("data-key")
      .then((k) => k.endsWith(".mp4")),
    true,
  );
  assert.equal(
    await t.page.getByRole("status", { name: "Search results" }).textContent(),
    "1 of 4 videos match",
  );
  await search.fill("holi");
  await waitUntil(async () => JSON.stringify(await titles()) === '["holiday"]');
  await search.fill("");
  const sort = t.page.getByRole("combobox", { name: "Sort" });
  await sort.selectOption("largest");
  await waitUntil(async () => (await titles())[0] === "holiday");
  await sort.selectOption("oldest");
  await waitUntil(async () => (await titles())[0] === "holiday");
  await sort.selectOption("newest");
  await waitUntil(async () => (await titles()).at(-1) === "holiday");
  // The keyboard moves between cards; one card is in the Tab order.
  const focused = () => t.page.evaluate(() => document.activeElement?.dataset.position);
  await t.page.locator(".asset").first().focus();
  assert.equal(await t.page.locator('.asset[tabindex="0"]').count(), 1);
  await t.page.keyboard.press("ArrowRight");
  assert.equal(await focused(), "2");
  await t.page.keyboard.press("End");
  assert.equal(await focused(), "4");
  await t.page.keyboard.press("Home");
  assert.equal(await focused(), "1");
  assert.equal(await t.page.locator(".asset").first().getAttribute("aria-setsize"), "4");
  // A new width lays the rows out again (fewer columns); the focused card keeps focus. It was
  // lost to the page's body before.
  const columns = () =>
    t.page.evaluate(() => document.querySelector(".asset-row")?.style.gridTemplateColumns);
  const wide = await columns();
  await t.page.keyboard.press("End");
  await t.page.setViewportSize({ width: 700, height: 900 });
  await waitUntil(async () => (await columns()) !== wide);
  await waitUntil(async () => (await focused()) === "4");
  await t.page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(t.page, "library-search");
});

test("a library of 601 keys to its last card with the page holding only a window of it", async () => {
  const id = await saved("many", "a murmuration of starlings");
  const dir = folder("many");
  for (let n = 0; n < 600; n++) {
    const stem = `copy-${String(n).padStart(3, "0")}`;
    linkSync(join(dir, `${id}.mp4`), join(dir, `${stem}.mp4`));
    linkSync(join(dir, `${id}.jpg`), join(dir, `${stem}.jpg`));
  }
  await t.page.goto(`${t.server.url}/many`);
  await t.page.getByRole("heading", { name: "Asset Library (601 videos)" }).waitFor();
  const cards = () =>
    t.page.evaluate(() => {
      const { first, assets, matching } = window.studio.view("cards");
      return { first, held: assets.length, matching };
    });
  await waitUntil(async () => (await cards()).matching === 601);
  assert.ok((await cards()).held <= 100, "the first page, not every video");
  const focused = () => t.page.evaluate(() => document.activeElement?.dataset.position);
  await t.page.locator(".asset").first().focus();
  await t.page.keyboard.press("End");
  await waitUntil(async () => (await focused()) === "601");
  const last = await t.page.evaluate(() => window.studio.view("library").assets.at(-1).key);
  assert.equal(await t.page.locator(".asset:focus").getAttribute("data-key"), last);
  const held = await cards();
  assert.ok(held.first > 400 && held.held < 100, JSON.stringify(held));
  assert.ok((await t.page.locator(".asset").count()) < 60, "only the rows near the screen");
  await t.page.keyboard.press("Home");
  await waitUntil(async () => (await focused()) === "1");
  assert.equal((await cards()).first, 0);
});

test("delete removes the files, the card and the job's tick", async () => {
  await t.page.goto(`${t.server.url}/del`);
  await t.page.getByText("No videos saved yet.", { exact: false }).waitFor();
  await t.page
    .getByPlaceholder("Describe the video you want to generate...")
    .fill("a paper boat on a puddle");
  await t.page.getByRole("button", { name: "Generate" }).click();
  const row = t.page.locator("li.job").first();
  const save = row.getByRole("button", { name: "Save to Library" });
  await waitUntil(
    async () => {
      if (await save.isVisible()) return true;
      const check = row.getByRole("button", { name: "Check Status" });
      if (await check.isEnabled().catch(() => false)) await check.click().catch(() => {});
      return false;
    },
    { interval: 500 },
  );
  await save.click();
  await row.getByText("✓ Saved to library").waitFor();
  const id = await row.getAttribute("data-job-id");
  const files = ["mp4", "json", "jpg"].map((ext) => join(folder("del"), `${id}.${ext}`));
  assert.deepEqual(files.map(existsSync), [true, true, true]);

  const card = t.page.locator(".asset").first();
  t.page.once("dialog", (dialog) => dialog.dismiss());
  await fromMenu(card, "Delete");
  assert.equal(await card.isVisible(), true, "dismissed: nothing deleted");
  t.page.once("dialog", (dialog) => dialog.accept());
  await fromMenu(card, "Delete");
  await t.page.getByRole("heading", { name: "Asset Library (0 videos)" }).waitFor();
  assert.deepEqual(files.map(existsSync), [false, false, false], "video, metadata and poster gone");
  await row.getByRole("button", { name: "Save to Library" }).waitFor();
  const stored = await t.page.evaluate(() => window.studio.jobs()[0].final_r2_key);
  assert.equal(stored, null);
});

test("a video dropped into the library folder gains a poster", async () => {
  const id = await saved("source", "a kite in the wind");
  mkdirSync(folder("dropin"), { recursive: true });
  copyFileSync(join(folder("source"), `${id}.mp4`), join(folder("dropin"), "by-hand.mp4"));
  await t.page.goto(`${t.server.url}/dropin`);
  const image = t.page.locator(".asset img.poster").first();
  await image.waitFor();
  const poster = await image.getAttribute("src");
  await waitUntil(() => image.evaluate((img) => img.complete && img.naturalWidth > 0));
  assert.equal(poster, `${t.server.url}/media/projects/dropin/by-hand.jpg`);
  await waitUntil(() => existsSync(join(folder("dropin"), "by-hand.jpg")));
  const served = await fetch(poster);
  assert.equal(served.headers.get("content-type"), "image/jpeg");
  assert.equal(served.headers.get("cache-control"), "public, max-age=31536000, immutable");
});

test("a video is starred with its button, approved with A, and the chips filter by pick", async () => {
  const kite = await saved("picks", "a kite over dunes");
  const tram = await saved("picks", "a tram in the snow");
  await t.page.goto(`${t.server.url}/picks`);
  const card = (id) => t.page.locator(`.asset[data-key="projects/picks/${id}.mp4"]`);
  await card(kite).waitFor();
  await card(kite)
    .getByRole("button", { name: /^Favourite/ })
    .click();
  await waitUntil(
    async () => (await card(kite).locator(".star").getAttribute("aria-pressed")) === "true",
  );
  await card(tram).focus();
  await t.page.keyboard.press("a");
  await waitUntil(async () => (await card(tram).locator(".decision-mark").count()) === 1);
  assert.equal(await card(tram).locator(".decision-mark").textContent(), "✓ Approved");
  await screenshot(t.page, "library-picks");

  const chip = (name) => t.page.getByRole("group", { name: "Show" }).getByRole("button", { name });
  await chip("★ Favourites").click();
  assert.deepEqual(await titles(), [kite.split(":task_")[1].slice(0, 20)]);
  await chip("Approved").click();
  assert.equal(await t.page.locator(".asset").count(), 1);
  assert.equal(await card(tram).count(), 1);
  await chip("Rejected").click();
  await t.page.getByText("No videos here yet.").waitFor();
  await chip("All").click();
  assert.equal(await t.page.locator(".asset").count(), 2);

  // Kept by the server: another browser, or the API, sees the same.
  const list = await (
    await fetch(`${t.server.url}/api/projects/picks/assets?decision=approved`, { headers })
  ).json();
  assert.deepEqual(
    list.videos.map((v) => [v.key, v.favourite, v.decision]),
    [[`projects/picks/${tram}.mp4`, false, "approved"]],
  );
  await t.page.reload();
  await card(tram).locator(".decision-mark").waitFor();
  // A again takes the approval back.
  await card(tram).focus();
  await t.page.keyboard.press("a");
  await waitUntil(async () => (await card(tram).locator(".decision-mark").count()) === 0);
});

test("two videos compared side by side stay within a frame of each other", async () => {
  const first = await saved("compare", "a red kite over hills", 5);
  const second = await saved("compare", "a blue sea at dawn", 5);
  await t.page.goto(`${t.server.url}/compare`);
  for (const id of [first, second]) {
    const card = t.page.locator(`.asset[data-key="projects/compare/${id}.mp4"]`);
    await fromMenu(card, "Compare");
  }
  const bar = t.page.getByRole("region", { name: "Compare" });
  await bar.getByRole("button", { name: "Compare (2)" }).click();
  const dialog = t.page.getByRole("dialog", { name: "Compare" });
  await dialog.waitFor();
  const videos = dialog.locator("video");
  assert.equal(await videos.count(), 2);
  // Seek, play 3 s, and every player is within one frame (1/24 s) of the first.
  const times = await playInSync(dialog);
  await screenshot(t.page, "compare-playing");
  await dialog.getByRole("button", { name: "Pause" }).click();
  await waitUntil(() => videos.evaluateAll((all) => all.every((v) => v.paused)));

  // With the videos focused, the right arrow steps every player one frame on.
  const before = (await times())[0];
  await dialog.getByRole("group", { name: "Compared videos" }).focus();
  await t.page.keyboard.press("ArrowRight");
  await waitUntil(async () =>
    (await times()).every((at) => Math.abs(at - before - 1 / 24) < 0.002),
  );
  // Two videos can be wiped one over the other, from the keyboard: Space ticks the box and an
  // arrow moves the wipe, without playing or stepping the videos (the keys were the player's
  // wherever the focus was).
  const stepped = await times();
  const wipe = dialog.getByLabel("Wipe", { exact: true });
  await wipe.focus();
  await t.page.keyboard.press(" ");
  assert.equal(await wipe.isChecked(), true);
  const position = dialog.getByRole("slider", { name: "Wipe position" });
  await position.fill("30");
  assert.equal(await videos.nth(1).evaluate((v) => v.style.clipPath), "inset(0px 0px 0px 30%)");
  await position.focus();
  await t.page.keyboard.press("ArrowRight");
  assert.equal(await position.inputValue(), "31");
  assert.deepEqual(await times(), stepped, "the videos neither played nor stepped");
  assert.equal(await videos.evaluateAll((all) => all.every((v) => v.paused)), true);
  await t.page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
});
