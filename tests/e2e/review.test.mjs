// Takes and review end to end, as a studio works: four takes of a shot, two compared in sync,
// the best starred, approved and found by the filter, downloaded and shared; a reviewer opens
// the link in a fresh browser context with no token, comments at a moment and approves; the
// studio sees both arrive live; a revoked link opens nothing.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  playInSync,
  savedVideo,
  screenshot,
  serverAndPage,
  shareLink,
  TOKEN,
  waitUntil,
  fromMenu,
} from "./harness.mjs";

const t = serverAndPage({ width: 1440, height: 900 });

/** The saved videos' keys, as the cards show them. */
const keys = (page) =>
  page.locator(".asset").evaluateAll((cards) => cards.map((card) => card.dataset.key));

test("four takes are compared, picked, shared, reviewed live and revoked", async () => {
  const studio = t.page;
  await studio.goto(`${t.server.url}/client-review`);
  await studio.getByRole("combobox", { name: "Takes" }).selectOption("4");
  await studio
    .getByPlaceholder("Describe the video you want to generate...")
    .fill("A red kite over a grey sea");
  await studio.getByRole("button", { name: "Generate" }).click();
  const rows = studio.locator("li.job.take");
  await waitUntil(async () => (await rows.count()) === 4);
  await waitUntil(
    async () => (await rows.locator(".badge").allTextContents()).every((b) => b === "DONE"),
    { between: () => studio.evaluate(() => window.studio.pollActive()) },
  );
  for (let i = 0; i < 4; i++) {
    await rows.nth(i).getByRole("button", { name: "Save to Library" }).click();
    await rows.nth(i).locator(".saved").waitFor();
  }
  await studio.getByRole("heading", { name: "Asset Library (4 videos)" }).waitFor();
  // Saving scrolled down the job list; the library's grid renders the cards in view.
  await studio.evaluate(() => window.scrollTo(0, 0));
  await waitUntil(async () => (await keys(studio)).length === 4);
  const [shared, kept] = (await keys(studio)).map((key) =>
    key.replace("projects/client-review/", "").replace(".mp4", ""),
  );

  // Two takes side by side: after a seek and 3 s of play, within a frame of each other.
  const card = studio.locator(`.asset[data-key="projects/client-review/${shared}.mp4"]`);
  const other = studio.locator(`.asset[data-key="projects/client-review/${kept}.mp4"]`);
  for (const each of [card, other]) await fromMenu(each, "Compare");
  await studio.getByRole("button", { name: "Compare (2)" }).click();
  const dialog = studio.getByRole("dialog", { name: "Compare" });
  await playInSync(dialog);
  await studio.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  await studio
    .getByRole("region", { name: "Compare" })
    .getByRole("button", { name: "Clear" })
    .click();

  // The best take: starred, approved, and the one the Approved filter keeps.
  await card.getByRole("button", { name: /^Favourite / }).click();
  await fromMenu(card, "Approve");
  await card.locator(".decision-mark.approved").waitFor();
  await studio.getByRole("button", { name: "Approved", exact: true }).click();
  await waitUntil(async () => (await keys(studio)).length === 1);
  assert.deepEqual(await keys(studio), [`projects/client-review/${shared}.mp4`]);
  await studio.getByRole("button", { name: "★ Favourites" }).click();
  await waitUntil(async () => (await keys(studio)).length === 1);
  await studio.getByRole("button", { name: "All", exact: true }).click();
  await waitUntil(async () => (await keys(studio)).length === 4);

  await fromMenu(card, "Select");
  const bar = studio.getByRole("region", { name: "Selected videos" });
  await bar.getByText("1 selected").waitFor();
  // The selection downloads as one ZIP of the video and its metadata.
  const [download] = await Promise.all([
    studio.waitForEvent("download"),
    bar.getByRole("button", { name: "Download selected" }).click(),
  ]);
  assert.equal(download.suggestedFilename(), "client-review-videos.zip");
  // The browser downloads it itself, from a ticket's address (it was a Blob the page had
  // filled with the whole archive first).
  assert.match(download.url(), /\/api\/downloads\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  const zip = readFileSync(await download.path());
  assert.equal(zip.readUInt32LE(0), 0x04034b50, "a ZIP");
  const entries = [`${shared}.mp4`, `${shared}.json`].map((n) => n.replace(":", "_"));
  for (const name of entries) assert.ok(zip.includes(Buffer.from(name)), name);
  assert.ok(!zip.includes(Buffer.from(kept)), "only what was selected");
  await bar.getByLabel("Title").fill("  Kite, cut 2 ");
  await bar.getByRole("button", { name: "Share for review" }).click();
  const link = bar.getByRole("textbox", { name: "Review link" });
  await link.waitFor();
  const url = await link.inputValue();
  assert.match(url, /\/review\/[A-Za-z0-9_-]{43}$/);
  await studio.getByRole("heading", { name: "Review" }).waitFor();

  // The reviewer: another browser context, no cookie, no token.
  const context = await t.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const reviewer = await context.newPage();
  const dialogs = [];
  reviewer.on("dialog", (d) => {
    dialogs.push(d.message());
    d.dismiss();
  });
  const bearers = [];
  reviewer.on("request", (r) => {
    if (r.url().includes("/api/") && r.headers().authorization) bearers.push(r.url());
  });
  await reviewer.goto(url);
  const item = reviewer.locator(".review-item");
  await item.waitFor();
  assert.equal(await item.count(), 1, "only the shared video");
  assert.equal(await item.getAttribute("data-video"), `${shared}.mp4`);
  // The client sees the link's title and what the video shows, its id beside it.
  assert.equal(await reviewer.getByRole("heading", { level: 1 }).textContent(), "Kite, cut 2");
  assert.equal(
    await item.getByRole("heading", { level: 2 }).textContent(),
    "A red kite over a grey sea AI-generated",
  );
  assert.ok(shared.includes(`task_${await item.locator(".review-id").textContent()}`));
  assert.equal(await reviewer.getByText("Asset Library").count(), 0, "nothing else of the studio");
  assert.ok(!(await reviewer.content()).includes(kept), "the other video is not named");

  const player = item.locator("video");
  await waitUntil(() => player.evaluate((v) => v.readyState >= 1));
  await player.evaluate((v) => {
    v.currentTime = 1.5;
  });
  await waitUntil(() => player.evaluate((v) => Math.abs(v.currentTime - 1.5) < 0.01));
  await reviewer.getByLabel("Name").fill("Ana <b>");
  const hostile = "<img src=x onerror=alert(1)> warmer here";
  await item.getByLabel("Comment").fill(hostile);
  await item.getByRole("button", { name: "Comment at current time" }).click();
  const comment = item.locator(".comment");
  await comment.waitFor();
  assert.equal(await comment.locator(".at").textContent(), "0:01.5");
  assert.equal(await comment.locator(".comment-text").textContent(), hostile);
  assert.equal(await item.locator(".comment img").count(), 0, "shown as text, not markup");
  await item.getByRole("button", { name: "Approve" }).click();
  await item.locator(".verdict.approved").waitFor();

  // Clicking a comment's time seeks there.
  await player.evaluate((v) => {
    v.currentTime = 0;
  });
  await comment.locator(".at").click();
  await waitUntil(() => player.evaluate((v) => Math.abs(v.currentTime - 1.5) < 0.01));
  await screenshot(reviewer, "review-page");

  // The studio saw both without reloading.
  const panel = studio.locator(".review-panel");
  await waitUntil(async () => (await panel.locator(".comment-text").textContent()) === hostile);
  await panel.locator(".verdict.approved").waitFor();
  assert.match(await panel.locator(".verdict").textContent(), /Approved by Ana <b>/);
  await card.getByRole("button", { name: "Info" }).click();
  const modal = studio.getByRole("dialog");
  await modal.getByRole("heading", { name: "Review" }).waitFor();
  assert.equal(await modal.locator(".comment-text").textContent(), hostile);
  await modal.getByRole("button", { name: "Close" }).click();
  await screenshot(studio, "review-studio");

  // Revoked: the link is dead at once.
  studio.once("dialog", (d) => d.accept());
  await panel.getByRole("button", { name: "Revoke" }).click();
  await waitUntil(async () => (await studio.locator(".review-panel").count()) === 0);
  await reviewer.reload();
  await reviewer.getByText("This review link is no longer valid.").waitFor();
  assert.deepEqual(bearers, [], "the review page never sent a bearer token");
  assert.deepEqual(dialogs, [], "nothing ran from the comment");
  await context.close();
});

test("a comment is posted once, and a reload that fails after it says so", async () => {
  const project = "post-once";
  const video = await savedVideo(t.server, project, "a lighthouse at dusk", 1);
  const { url } = await shareLink(t.server, project, [video]);
  const token = new URL(url).pathname.split("/").pop();

  const context = await t.browser.newContext();
  const reviewer = await context.newPage();
  await reviewer.goto(url);
  const item = reviewer.locator(".review-item");
  await item.waitFor();
  await reviewer.getByLabel("Name").fill("Ana");
  await item.getByLabel("Comment").fill("warmer here");
  // The page's reload after the post is held, then fails.
  let release;
  const held = new Promise((resolve) => (release = resolve));
  let reloads = 0;
  await reviewer.route(`**/api/review/${token}`, async (route) => {
    if (route.request().method() !== "GET") return route.continue();
    reloads += 1;
    await held;
    await route.fulfill({ status: 503, body: "" });
  });
  const send = item.getByRole("button", { name: "Comment at current time" });
  await send.click();
  await waitUntil(() => reloads === 1);
  assert.equal(await send.isDisabled(), true, "not sent twice while the reload is on its way");
  release();
  await reviewer.getByText("Posted; could not refresh").waitFor();
  assert.equal(await item.getByLabel("Comment").inputValue(), "", "the text it sent is gone");
  assert.deepEqual(await commentsOf(project), ["warmer here"]);
  await context.close();
});

/** The comments the studio sees on the project's first link. */
async function commentsOf(project) {
  const listed = await (
    await fetch(`${t.server.url}/api/projects/${project}/shares`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    })
  ).json();
  return listed.shares[0].comments.map((c) => c.text);
}

test("a comment whose answer was lost is kept once when sent again", async () => {
  const project = "lost-answer";
  const video = await savedVideo(t.server, project, "a quay in fog", 1);
  const { url } = await shareLink(t.server, project, [video]);
  const context = await t.browser.newContext();
  const reviewer = await context.newPage();
  await reviewer.goto(url);
  const item = reviewer.locator(".review-item");
  await item.waitFor();
  await reviewer.getByLabel("Name").fill("Ana");
  await item.getByRole("textbox", { name: "Comment" }).fill("hold on the boat");
  // The first post reaches the server, but its answer never reaches the page.
  assert.equal(await item.locator(".ai-label").textContent(), "AI-generated", "labelled");
  const posts = [];
  await reviewer.route("**/api/review/*/comments", async (route) => {
    posts.push(route.request().postDataJSON().client_id);
    if (posts.length > 1) return route.continue();
    await route.fetch();
    await route.abort("connectionreset");
  });
  const send = item.getByRole("button", { name: "Comment at current time" });
  await send.click();
  await reviewer.getByRole("alert").filter({ hasText: "Failed to send" }).waitFor();
  assert.equal(
    await item.getByRole("textbox", { name: "Comment" }).inputValue(),
    "hold on the boat",
    "kept",
  );
  await send.click();
  await waitUntil(
    async () => (await item.getByRole("textbox", { name: "Comment" }).inputValue()) === "",
  );
  assert.equal(posts.length, 2);
  assert.equal(posts[0], posts[1], "sent again with the same client id");
  assert.deepEqual(await commentsOf(project), ["hold on the boat"], "kept once");
  await context.close();
});

test("a post on a link revoked meanwhile says the link is gone and hides the form", async () => {
  const project = "revoked-meanwhile";
  const video = await savedVideo(t.server, project, "a cliff path", 1);
  const { url, id } = await shareLink(t.server, project, [video]);
  const context = await t.browser.newContext();
  const reviewer = await context.newPage();
  await reviewer.goto(url);
  const item = reviewer.locator(".review-item");
  await item.waitFor();
  const revoked = await fetch(`${t.server.url}/api/projects/${project}/shares/${id}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(revoked.status, 204);
  await reviewer.getByLabel("Name").fill("Ana");
  await item.getByLabel("Comment").fill("too late?");
  await item.getByRole("button", { name: "Comment at current time" }).click();
  await reviewer.getByText("This review link is no longer valid.").waitFor();
  assert.equal(await reviewer.locator("form").count(), 0, "no form to post on");
  await context.close();
});

test("a link of many videos loads each poster and video as it comes into view", async () => {
  const project = "many-videos";
  const videos = [];
  for (const n of [1, 2, 3, 4, 5]) {
    videos.push(await savedVideo(t.server, project, `a window ${n}`, 1));
  }
  const { url } = await shareLink(t.server, project, videos);
  const context = await t.browser.newContext({ viewport: { width: 800, height: 500 } });
  const reviewer = await context.newPage();
  const asked = new Set();
  reviewer.on("request", (request) => {
    const path = new URL(request.url()).pathname;
    if (/\.(jpg|mp4)$/.test(path))
      asked.add(
        path
          .split("/")
          .pop()
          .replace(/\.\w+$/, ""),
      );
  });
  await reviewer.goto(url);
  const items = reviewer.locator(".review-item");
  await waitUntil(async () => (await items.count()) === 5);
  const first = items.first().locator("video");
  await waitUntil(() => first.evaluate((v) => v.poster !== "" && v.readyState >= 1));
  assert.ok(asked.size < 5, `all five asked for before they were in view: ${[...asked]}`);
  for (let n = 1; n < 5; n++) {
    const item = items.nth(n);
    await item.scrollIntoViewIfNeeded();
    await waitUntil(() => item.locator("video").evaluate((v) => v.readyState >= 1));
  }
  assert.equal(asked.size, 5);
  await context.close();
});

test("a reviewer opens a video's Content Credentials and reads how it was made", async () => {
  const project = "review-credentials";
  const video = await savedVideo(t.server, project, "a tram at night", 1);
  const { url } = await shareLink(t.server, project, [video]);
  const context = await t.browser.newContext();
  const reviewer = await context.newPage();
  const asked = [];
  reviewer.on("request", (request) => {
    if (request.url().includes("/credentials")) asked.push(request.headers().authorization);
  });
  await reviewer.goto(url);
  const item = reviewer.locator(".review-item");
  await item.waitFor();
  assert.equal(asked.length, 0, "read only when opened");
  await item.getByText("Content Credentials").click();
  const facts = item.getByTestId("credentials");
  await facts.waitFor();
  assert.match(await facts.textContent(), /Made with AI by local\//);
  assert.match(await facts.textContent(), /Valid, from a signer validators do not trust yet/);
  assert.deepEqual(asked, [undefined], "once, with no bearer");
  await context.close();
});
