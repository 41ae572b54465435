// From shots to a cut in the browser: three library videos added to a sequence from their
// cards, reordered by keyboard, trimmed, undone and redone, played through, followed live by
// a second browser, and exported as one MP4 that joins the library.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  audit,
  finishedJob,
  fromMenu,
  savedVideo,
  serverAndPage,
  TOKEN,
  waitUntil,
} from "./harness.mjs";

const t = serverAndPage({ width: 1440, height: 900 });
const PROJECT = "cut-room";

/** The strip's shot labels, in order. */
const labels = (panel) => panel.locator(".strip .shot-label").allTextContents();

/** Adds the video of `scope` (a library card or a job row) from its menu as the sequence's
 * shot number `count`. The editor opens over the dashboard to show it, and is closed again
 * (with Escape) unless `stay`. */
async function addShot(scope, count, { stay = false } = {}) {
  const page = scope.page();
  await fromMenu(scope, "Add to sequence");
  const editor = page.getByRole("dialog", { name: /^Sequence/ });
  await waitUntil(async () => (await editor.locator(".strip li").count()) === count);
  if (stay) return;
  await page.keyboard.press("Escape");
  await editor.waitFor({ state: "detached" });
}

/** The sequence as the server keeps it. */
async function stored(server) {
  const headers = { authorization: `Bearer ${TOKEN}` };
  const base = `${server.url}/api/projects/${PROJECT}/sequences`;
  const { sequences } = await (await fetch(base, { headers })).json();
  return (await fetch(`${base}/${sequences[0].id}`, { headers })).json();
}

test("a sequence is built from library cards, edited, followed live, played and exported", async (context) => {
  const ids = [];
  for (const prompt of ["a heron over reeds", "waves on a grey shore"]) {
    ids.push(await savedVideo(t.server, PROJECT, prompt, 2));
  }
  const page = t.page;
  await page.goto(`${t.server.url}/${PROJECT}`);
  const card = (id) => page.locator(`.asset[data-key="projects/${PROJECT}/${id}.mp4"]`);
  await card(ids[0]).waitFor();
  await card(ids[1]).waitFor();

  // Three shots from the cards' menus: the editor (and its wasm) loads on the first.
  for (const [at, id] of [ids[0], ids[1], ids[0]].entries())
    await addShot(card(id), at + 1, { stay: at === 2 });
  const panel = page.getByRole("region", { name: /^Sequence/ });
  const status = panel.getByTestId("sequence-status");
  await waitUntil(async () => (await status.textContent()) === "3 shots, 6.00 s · Saved");
  assert.deepEqual(await labels(panel), ["Shot 1", "Shot 2", "Shot 3"]);

  // A second browser opens the same sequence.
  const other = await t.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const second = await other.newPage();
  await second.goto(`${t.server.url}/${PROJECT}`);
  await second.getByRole("button", { name: "Sequence", exact: true }).click();
  const seen = second.getByRole("region", { name: /^Sequence/ });
  await waitUntil(async () => (await labels(seen)).length === 3);
  assert.equal(await second.evaluate(() => document.activeElement.id), "sequence-heading");

  // Shot 3 moves to the front with Alt+Left twice and keeps the focus.
  const third = panel.locator(".strip button", { hasText: "Shot 3" });
  await third.focus();
  await page.keyboard.press("Alt+ArrowLeft");
  await waitUntil(async () => (await labels(panel))[1] === "Shot 3");
  await page.keyboard.press("Alt+ArrowLeft");
  await waitUntil(async () => (await labels(panel))[0] === "Shot 3");
  assert.equal(await page.evaluate(() => document.activeElement.textContent), "Shot 32.00 s");

  // Shot 1 trimmed to start at 0.5 s.
  await panel.locator(".strip button", { hasText: "Shot 1" }).click();
  const inPoint = panel.getByLabel("In (s)");
  await inPoint.fill("0.5");
  await inPoint.blur();
  await waitUntil(async () => (await status.textContent()) === "3 shots, 5.50 s · Saved");

  // Undone and redone from the keyboard; every step is saved.
  await panel.locator(".strip button", { hasText: "Shot 1" }).focus();
  await page.keyboard.press("Control+z");
  await waitUntil(async () => (await status.textContent()) === "3 shots, 6.00 s · Saved");
  await page.keyboard.press("Control+Shift+z");
  await waitUntil(async () => (await status.textContent()) === "3 shots, 5.50 s · Saved");
  const sequence = await stored(t.server);
  assert.deepEqual(
    sequence.shots.map((s) => [s.label, s.take, s.in_s, s.out_s]),
    [
      ["Shot 3", `${ids[0]}.mp4`, 0, 2],
      ["Shot 1", `${ids[0]}.mp4`, 0.5, 2],
      ["Shot 2", `${ids[1]}.mp4`, 0, 2],
    ],
  );

  // The second browser followed every change.
  await waitUntil(async () => (await labels(seen)).join() === "Shot 3,Shot 1,Shot 2");
  await waitUntil(async () =>
    (await seen.getByTestId("sequence-status").textContent()).includes("5.50 s"),
  );
  await other.close();

  // Played through without a gap: the frames each player presents while playing
  // (requestVideoFrameCallback) and the moment each takes over. At each cut the next shot
  // shows within two frames of the last one, on its in point.
  await page.evaluate(() => {
    window.presented = [];
    window.takeovers = [];
    for (const video of document.querySelectorAll(".sequence-screen video")) {
      const seen = (now, frame) => {
        if (!video.paused) window.presented.push({ at: frame.expectedDisplayTime });
        video.requestVideoFrameCallback(seen);
      };
      video.requestVideoFrameCallback(seen);
      new MutationObserver((changes) => {
        if (changes.some((c) => c.oldValue === "back") && video.className === "front") {
          window.takeovers.push({ at: performance.now(), media: video.currentTime });
        }
      }).observe(video, { attributeFilter: ["class"], attributeOldValue: true });
    }
  });
  await panel.getByRole("button", { name: "Play sequence" }).click();
  await waitUntil(async () => (await panel.textContent()).includes("Shot 2 (3 of 3)"));
  await panel.getByRole("button", { name: "Play sequence" }).waitFor();
  const { presented, takeovers } = await page.evaluate(() => ({
    presented: window.presented,
    takeovers: window.takeovers,
  }));
  assert.equal(takeovers.length, 2, JSON.stringify(takeovers));
  const frame = 1 / 24;
  for (const [takeover, inS] of takeovers.map((t, i) => [t, [0.5, 0][i]])) {
    const before = presented.filter((p) => p.at <= takeover.at).at(-1);
    const gap = (takeover.at - before.at) / 1000;
    context.diagnostic(
      `cut to ${inS} s: held ${(gap * 1000).toFixed(1)} ms, in at ${takeover.media} s`,
    );
    assert.ok(gap <= 2 * frame, `the screen held a frame ${(gap * 1000).toFixed(0)} ms at a cut`);
    assert.ok(
      Math.abs(takeover.media - inS) <= frame,
      `a shot began at ${takeover.media} s, not ${inS}`,
    );
  }

  assert.deepEqual(await audit(page), []);

  // Exported: a job of model "sequence", whose video joins the library.
  await panel.getByRole("button", { name: "Export MP4" }).click();
  await panel.getByText(/^Exporting/).waitFor();
  const headers = { authorization: `Bearer ${TOKEN}` };
  const assets = `${t.server.url}/api/projects/${PROJECT}/assets`;
  await waitUntil(
    async () => (await (await fetch(assets, { headers })).json()).videos.length === 3,
  );
  const { videos } = await (await fetch(assets, { headers })).json();
  const exported = videos.find((v) => v.key.startsWith(`projects/${PROJECT}/sequence:`));
  assert.ok(exported, JSON.stringify(videos));
  await page.getByRole("heading", { name: "Asset Library (3 videos)" }).waitFor();
  // The export plays in the browser (its moov comes after its mdat).
  const played = await page.evaluate(async (url) => {
    const video = document.createElement("video");
    video.muted = true;
    video.src = url;
    await video.play();
    await new Promise((done) => {
      const check = () => (video.currentTime >= 1 ? done() : requestAnimationFrame(check));
      check();
    });
    return { width: video.videoWidth, duration: video.duration };
  }, exported.public_url);
  assert.deepEqual(played, { width: 1280, duration: 5.5 });

  // Continue on the last shot: a shot after it, whose take extends the last shot's; done, the
  // server saves it to the library and it joins the new shot, chosen, with no save by hand.
  await panel.locator(".strip button", { hasText: "Shot 2" }).click();
  await panel.getByRole("button", { name: "Continue" }).click();
  await waitUntil(async () => (await labels(panel)).join() === "Shot 3,Shot 1,Shot 2,Shot 4");
  const notice = await panel.getByText(/^Making the next shot's take/).textContent();
  const job = notice.match(/\(([^)]+)\)/)[1];
  const row = page.locator(`li[data-job-id="${job}"]`);
  await row.locator(".badge", { hasText: "DONE" }).waitFor({ timeout: 60_000 });
  await waitUntil(async () => (await stored(t.server)).shots[3].take === `${job}.mp4`);
  await row.getByText("✓ Saved to library").waitFor();
  const continued = (await stored(t.server)).shots[3];
  assert.deepEqual(continued.takes, [`${job}.mp4`]);
  assert.equal(continued.prompt, "waves on a grey shore");
  const jobs = await (
    await fetch(`${t.server.url}/api/projects/${PROJECT}/jobs`, { headers })
  ).json();
  const made = jobs.jobs.find((j) => j.sora_job_id === job);
  assert.deepEqual(made.inputs, [{ video: `${ids[1]}.mp4`, role: "extend" }]);

  // Closed, the panel gives the focus back to the button that opens it; opened again, it
  // shows the sequence as saved (its editor was let go and a new one made).
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await panel.getByRole("button", { name: "Close" }).click();
  await panel.waitFor({ state: "detached" });
  assert.equal(await page.evaluate(() => document.activeElement.textContent), "Sequence");
  await page.getByRole("button", { name: "Sequence", exact: true }).click();
  await waitUntil(async () => (await labels(panel)).length === 4);
  assert.deepEqual(errors, []);
});

test("a finished job is added from its row, saved first, and its take plays whatever the library shows", async () => {
  const project = "row-cut";
  const job = await finishedJob(t.server, project, "a lantern on a jetty", 2);
  const page = t.page;
  await page.goto(`${t.server.url}/${project}`);
  const row = page.locator(`li[data-job-id="${job}"]`);
  await row.locator(".badge", { hasText: "DONE" }).waitFor();
  await row.getByRole("button", { name: "Save to Library" }).waitFor();

  // Not saved yet: Add to sequence saves it to the library, then adds it as a shot.
  await addShot(row, 1);
  await row.getByText("✓ Saved to library").waitFor();
  // Saved, it is added again as it is: no second save.
  await addShot(row, 2, { stay: true });
  const panel = page.getByRole("region", { name: /^Sequence/ });
  const status = panel.getByTestId("sequence-status");
  await waitUntil(async () => (await status.textContent()) === "2 shots, 4.00 s · Saved");
  const headers = { authorization: `Bearer ${TOKEN}` };
  const base = `${t.server.url}/api/projects/${project}/sequences`;
  const { sequences } = await (await fetch(base, { headers })).json();
  const sequence = await (await fetch(`${base}/${sequences[0].id}`, { headers })).json();
  assert.deepEqual(
    sequence.shots.map((s) => s.take),
    [`${job}.mp4`, `${job}.mp4`],
  );
  const assets = await (
    await fetch(`${t.server.url}/api/projects/${project}/assets`, { headers })
  ).json();
  assert.equal(assets.videos.length, 1, "saved once");

  // A search that hides the video in the library leaves the sequence its posters and player.
  await page.keyboard.press("Escape");
  await panel.waitFor({ state: "detached" });
  await page.getByRole("searchbox", { name: "Search videos" }).fill("nothing like it");
  await page.getByRole("heading", { name: /^Asset Library/ }).waitFor();
  await waitUntil(async () => (await page.locator(".asset").count()) === 0);
  await page.getByRole("button", { name: "Sequence", exact: true }).click();
  await panel.locator(".strip img").nth(1).waitFor();
  assert.equal(await panel.locator(".strip .no-poster").count(), 0);
  await panel.getByRole("button", { name: "Play sequence" }).click();
  await waitUntil(async () => (await panel.textContent()).includes("Shot 2 (2 of 2)"));

  // A second sequence, made and opened beside the first, which opens again as it was.
  await panel.getByRole("button", { name: "New sequence" }).click();
  await panel.getByRole("heading", { name: "Sequence: Sequence 2" }).waitFor();
  await waitUntil(async () => (await status.textContent()) === "0 shots, 0.00 s · Saved");
  const open = panel.getByLabel("Open");
  await waitUntil(async () => (await open.locator("option").count()) === 2);
  await open.selectOption({ label: "Sequence 1" });
  await panel.getByRole("heading", { name: "Sequence: Sequence 1" }).waitFor();
  await waitUntil(async () => (await status.textContent()) === "2 shots, 4.00 s · Saved");
  assert.deepEqual(await audit(page), []);
});

test("opening a project's sequence lists its sequences once", async () => {
  const project = "one-listing";
  const base = `${t.server.url}/api/projects/${project}/sequences`;
  const made = await fetch(base, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Sequence 1", first: true }),
  });
  assert.equal(made.status, 201);
  const { id } = await made.json();

  const context = await t.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const asked = [];
  page.on("request", (request) =>
    asked.push(`${request.method()} ${new URL(request.url()).pathname}`),
  );
  await page.goto(`${t.server.url}/${project}`);
  await page.getByRole("button", { name: "Sequence", exact: true }).click();
  await page.getByRole("heading", { name: "Sequence: Sequence 1" }).waitFor();
  // The editor follows the project's events once it has opened the sequence; a second listing
  // would have been asked for before that.
  const opened = `GET /api/projects/${project}/sequences/${id}`;
  const events = `GET /api/projects/${project}/events`;
  await waitUntil(() => {
    const at = asked.indexOf(opened);
    return at >= 0 && asked.indexOf(events, at) > at;
  });
  assert.deepEqual(
    asked.filter((request) => request === `GET /api/projects/${project}/sequences`),
    [`GET /api/projects/${project}/sequences`],
  );
  await context.close();
});

test("a sequence made in another browser joins the list to open from", async () => {
  const project = "listed-elsewhere";
  const base = `${t.server.url}/api/projects/${project}/sequences`;
  const make = (name) =>
    fetch(base, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name, first: false }),
    });
  assert.equal((await make("Sequence 1")).status, 201);

  const page = t.page;
  await page.goto(`${t.server.url}/${project}`);
  await page.getByRole("button", { name: "Sequence", exact: true }).click();
  const panel = page.getByRole("region", { name: /^Sequence/ });
  await panel.getByRole("heading", { name: "Sequence: Sequence 1" }).waitFor();

  assert.equal((await make("Sequence 2")).status, 201);
  const open = panel.getByLabel("Open");
  await waitUntil(async () => (await open.locator("option").count()) === 2);
  await open.selectOption({ label: "Sequence 2" });
  await panel.getByRole("heading", { name: "Sequence: Sequence 2" }).waitFor();
});

/** A browser of its own on `project`, whose sequence is `count` shots of one saved video of
 * `seconds` made from `prompt`, saved: its context, page, Sequence panel and status line. */
async function withShots(project, prompt, seconds, count) {
  const video = await savedVideo(t.server, project, prompt, seconds);
  const context = await t.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${t.server.url}/${project}`);
  const card = page.locator(`.asset[data-key="projects/${project}/${video}.mp4"]`);
  await card.waitFor();
  for (let i = 1; i <= count; i++) await addShot(card, i, { stay: i === count });
  const panel = page.getByRole("region", { name: /^Sequence/ });
  const status = panel.getByTestId("sequence-status");
  const length = `${count} ${count === 1 ? "shot" : "shots"}, ${(count * seconds).toFixed(2)} s`;
  await waitUntil(async () => (await status.textContent()) === `${length} · Saved`);
  return { context, page, panel, status };
}

test("a refused save waits for the next edit, and a save that did not arrive is sent again after a wait", async () => {
  const project = "refused-saves";
  const { context, page, panel, status } = await withShots(project, "a kite over the dunes", 2, 1);

  // Every PUT is counted; while `refusal` is set, the server's answer is replaced by it.
  const puts = [];
  let refusal = { status: 422, message: "Shot 1: out_s 9 is past the end of its take (2.00 s)" };
  await page.route(`**/api/projects/${project}/sequences/*`, async (route) => {
    if (route.request().method() !== "PUT") return route.continue();
    puts.push(route.request().postDataJSON().shots[0].in_s);
    if (refusal === null) return route.continue();
    const { status, message, once } = refusal;
    if (once) refusal = null;
    await route.fulfill({
      status,
      contentType: "application/json",
      body: JSON.stringify({ error: { code: "invalid", message } }),
    });
  });
  await panel.locator(".strip button", { hasText: "Shot 1" }).click();
  const inPoint = panel.getByLabel("In (s)");
  const trim = async (value) => {
    await inPoint.fill(value);
    await inPoint.blur();
  };

  // Refused (422): the reason is shown, the edit is kept, and nothing is sent again (the code
  // before sent the same PUT again at once, hundreds of times a second).
  await trim("0.5");
  const alert = panel.getByRole("alert");
  await alert.getByText("Not saved: Shot 1: out_s 9 is past the end of its take").waitFor();
  await waitUntil(async () => (await status.textContent()) === "1 shot, 1.50 s · Not saved");
  assert.deepEqual(puts, [0.5]);

  // The next edit is sent, once; refused again, it waits again.
  await trim("0.25");
  await waitUntil(async () => (await status.textContent()) === "1 shot, 1.75 s · Not saved");
  assert.deepEqual(puts, [0.5, 0.25]);

  // Did not arrive (503, once): sent again by itself after a wait, and taken this time.
  refusal = { status: 503, message: "Service Unavailable", once: true };
  await trim("0.75");
  await waitUntil(async () => (await status.textContent()) === "1 shot, 1.25 s · Saved");
  assert.deepEqual(puts, [0.5, 0.25, 0.75, 0.75]);
  assert.equal(await alert.count(), 0, "the failure is no longer shown");
  await context.close();
});

test("Alt+Left on the first shot and Alt+Right on the last stay in the strip; Delete hands the focus on", async () => {
  const project = "strip-keys";
  const { context, page, panel, status } = await withShots(project, "a lantern in the rain", 1, 2);
  const projectUrl = page.url();
  const shot = (label) => panel.locator(".strip button", { hasText: label });

  // Whether each Alt+arrow was kept from the browser (which would go Back or Forward on it;
  // keys Playwright presses reach the page only, so the page's answer is what is checked).
  await page.evaluate(() => {
    window.altArrows = [];
    window.addEventListener("keydown", (event) => {
      if (event.altKey && event.key.startsWith("Arrow"))
        window.altArrows.push(event.defaultPrevented);
    });
  });
  await shot("Shot 1").focus();
  await page.keyboard.press("Alt+ArrowLeft");
  await page.keyboard.press("Alt+ArrowRight");
  await waitUntil(async () => (await labels(panel)).join() === "Shot 2,Shot 1");
  await page.keyboard.press("Alt+ArrowRight");
  await page.keyboard.press("Alt+ArrowLeft");
  await waitUntil(async () => (await labels(panel)).join() === "Shot 1,Shot 2");
  assert.equal(page.url(), projectUrl);
  assert.deepEqual(
    await page.evaluate(() => window.altArrows),
    [true, true, true, true],
    "every Alt+arrow is kept from the browser, at the ends of the strip too",
  );

  // Delete on the last shot hands the focus to the one before it, where Ctrl+Z still works.
  await shot("Shot 2").focus();
  await page.keyboard.press("Delete");
  await waitUntil(async () => (await labels(panel)).join() === "Shot 1");
  await waitUntil(async () =>
    page.evaluate(() => document.activeElement?.getAttribute("data-shot") !== null),
  );
  await page.keyboard.press("Control+z");
  await waitUntil(async () => (await labels(panel)).join() === "Shot 1,Shot 2");
  await waitUntil(async () => (await status.textContent()) === "2 shots, 2.00 s · Saved");
  await context.close();
});

test("edits kept aside after a conflict stay reachable until applied or let go, and are not dropped unasked", async () => {
  const project = "kept-aside";
  const { context, page, panel, status } = await withShots(project, "a ferry at dawn", 1, 1);

  // The next save is refused as if someone else had changed the sequence first: the answer
  // names the server's version as current, with the shot as it was.
  let refused = false;
  await page.route(`**/api/projects/${project}/sequences/*`, async (route) => {
    if (route.request().method() !== "PUT" || refused) return route.continue();
    refused = true;
    const sent = route.request().postDataJSON();
    const id = new URL(route.request().url()).pathname.split("/").pop();
    const current = { ...sent, id, shots: sent.shots.map((s) => ({ ...s, in_s: 0 })) };
    await route.fulfill({
      status: 409,
      contentType: "application/json",
      body: JSON.stringify({
        error: { code: "conflict", message: "changed elsewhere" },
        current: { ...current, duration_s: 1 },
      }),
    });
  });
  await panel.locator(".strip button", { hasText: "Shot 1" }).click();
  const inPoint = panel.getByLabel("In (s)");
  await inPoint.fill("0.5");
  await inPoint.blur();
  const keptAside = panel.getByRole("group", { name: "Edits kept aside" });
  await keptAside.waitFor();
  await waitUntil(async () => (await status.textContent()).endsWith("· 1 edit kept aside"));

  // Closing asks first; dismissed, nothing is dropped.
  const asked = [];
  page.once("dialog", (dialog) => {
    asked.push(dialog.message());
    return dialog.dismiss();
  });
  await panel.getByRole("button", { name: "Close" }).click();
  await waitUntil(() => asked.length === 1);
  assert.match(asked[0], /^1 edit is kept aside and not saved/);
  await keptAside.getByRole("button", { name: "Apply my edits again" }).waitFor();

  // Applied again: saved on top of the other change.
  await keptAside.getByRole("button", { name: "Apply my edits again" }).click();
  await waitUntil(async () => (await status.textContent()) === "1 shot, 0.50 s · Saved");
  assert.equal(await keptAside.count(), 0);
  await context.close();
});

test("of two sequences asked to open, the one asked last stays open whichever answers last", async () => {
  const project = "crossed-opens";
  const base = `${t.server.url}/api/projects/${project}/sequences`;
  const make = async (name) => {
    const made = await fetch(base, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });
    assert.equal(made.status, 201);
    return (await made.json()).id;
  };
  const first = await make("First");
  await make("Second");
  await make("Third");

  const context = await t.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${t.server.url}/${project}`);
  await page.getByRole("button", { name: "Sequence", exact: true }).click();
  const panel = page.getByRole("region", { name: /^Sequence/ });
  await panel.getByRole("heading", { name: "Sequence: Third" }).waitFor();
  const open = panel.getByLabel("Open");
  await waitUntil(async () => (await open.locator("option").count()) === 3);

  // "First" is asked for, and its answer held; then "Second", which answers at once.
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route(`**/api/projects/${project}/sequences/${first}`, async (route) => {
    await held;
    await route.continue();
  });
  await open.selectOption({ label: "First" });
  await open.selectOption({ label: "Second" });
  await panel.getByRole("heading", { name: "Sequence: Second" }).waitFor();
  const answered = page.waitForResponse((r) => r.url().endsWith(`/sequences/${first}`));
  release();
  await answered;
  await page.evaluate(
    () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
  );
  assert.equal(
    await panel.getByRole("heading", { level: 2 }).textContent(),
    "Sequence: Second",
    "the older answer did not open its sequence",
  );
  await context.close();
});

test("a panel closed while its sequence is still opening follows no event stream", async () => {
  const project = "closed-while-opening";
  const made = await fetch(`${t.server.url}/api/projects/${project}/sequences`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Only", first: true }),
  });
  assert.equal(made.status, 201);
  const { id } = await made.json();

  const context = await t.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const streams = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === `/api/projects/${project}/events`) {
      streams.push(request.url());
    }
  });
  await page.goto(`${t.server.url}/${project}`);
  let release;
  const held = new Promise((resolve) => (release = resolve));
  let asked = false;
  await page.route(`**/api/projects/${project}/sequences/${id}`, async (route) => {
    asked = true;
    await held;
    await route.continue();
  });
  const toggle = page.getByRole("button", { name: "Sequence", exact: true });
  await toggle.click();
  await waitUntil(() => asked);
  const before = streams.length;
  await page.keyboard.press("Escape");
  await page.getByRole("region", { name: /^Sequence/ }).waitFor({ state: "detached" });
  const answered = page.waitForResponse((r) => r.url().endsWith(`/sequences/${id}`));
  release();
  await answered;
  await page.evaluate(
    () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
  );
  assert.equal(streams.length, before, "no stream opened for a closed panel");
  await context.close();
});

test("a take deleted elsewhere shows as missing on its shot at once", async () => {
  const project = "take-deleted";
  const { context, page, panel } = await withShots(project, "a gull on a post", 1, 1);
  const take = await panel.locator(".strip button").first();
  const { sequences } = await (
    await fetch(`${t.server.url}/api/projects/${project}/sequences`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    })
  ).json();
  const sequence = await (
    await fetch(`${t.server.url}/api/projects/${project}/sequences/${sequences[0].id}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    })
  ).json();
  const deleted = await fetch(
    `${t.server.url}/api/projects/${project}/assets/${encodeURIComponent(sequence.shots[0].take)}`,
    { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}` } },
  );
  assert.equal(deleted.status, 204);
  await waitUntil(async () => (await take.textContent()).includes("Take missing"));
  assert.equal(new URL(page.url()).pathname, `/${project}`, "without a reload");
  await context.close();
});

/** The project's first sequence, as the server keeps it. */
async function firstSequence(project) {
  const headers = { authorization: `Bearer ${TOKEN}` };
  const base = `${t.server.url}/api/projects/${project}/sequences`;
  const { sequences } = await (await fetch(base, { headers })).json();
  return (await fetch(`${base}/${sequences[0].id}`, { headers })).json();
}

test("an Out past the take's end is refused on its field, and nothing is sent", async () => {
  const project = "out-past-end";
  const { context, page, panel, status } = await withShots(project, "a tram at night", 2, 1);
  let puts = 0;
  await page.route(`**/api/projects/${project}/sequences/*`, (route) => {
    if (route.request().method() === "PUT") puts += 1;
    return route.continue();
  });
  await panel.locator(".strip button", { hasText: "Shot 1" }).click();
  const out = panel.getByRole("spinbutton", { name: /^Out/ });
  assert.equal(await out.getAttribute("max"), "2", "the field carries the take's length");
  assert.equal(await out.getAttribute("step"), "any");
  await out.fill("9");
  await out.blur();
  const refusal = panel.locator(".field-refusal");
  await refusal.getByText("the out point is past the end of its take (2 s)").waitFor();
  assert.equal(await out.getAttribute("aria-invalid"), "true");
  assert.equal(await status.textContent(), "1 shot, 2.00 s · Saved");
  // In at or after Out is refused the same way.
  const inPoint = panel.getByRole("spinbutton", { name: /^In/ });
  await inPoint.fill("2");
  await inPoint.blur();
  await panel
    .locator(".field-refusal")
    .getByText("the out point must come after the in point")
    .waitFor();
  // A time between frames is taken as the nearest frame, and then sent once.
  await out.fill("1.51");
  await out.blur();
  await waitUntil(async () => (await status.textContent()) === "1 shot, 1.50 s · Saved");
  assert.equal(puts, 1);
  assert.equal(await panel.locator(".field-refusal").count(), 0);
  await context.close();
});

test("a sequence removed elsewhere closes with a notice, and its edits can be kept as a new one", async () => {
  const project = "removed-elsewhere";
  const { context, panel, status } = await withShots(project, "a heron in reeds", 1, 2);
  const before = await firstSequence(project);
  const gone = await fetch(`${t.server.url}/api/projects/${project}/sequences/${before.id}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(gone.status, 204);
  const notice = panel.getByRole("group", { name: "Sequence removed elsewhere" });
  await notice.getByText(`“${before.name}” was removed elsewhere`).waitFor();
  assert.equal(await panel.locator(".strip").count(), 0, "the removed sequence is closed");
  await notice.getByRole("button", { name: "Keep my edits as a new sequence" }).click();
  await waitUntil(async () => (await status.textContent()) === "2 shots, 2.00 s · Saved");
  assert.equal(await notice.count(), 0);
  const kept = await firstSequence(project);
  assert.notEqual(kept.id, before.id);
  assert.deepEqual(
    kept.shots.map((s) => [s.label, s.take, s.in_s, s.out_s]),
    before.shots.map((s) => [s.label, s.take, s.in_s, s.out_s]),
  );
  await context.close();
});

test("the stream that cannot open backs off, and once open the sequence is read again", async () => {
  const project = "stream-reconnect";
  const { context, page, panel } = await withShots(project, "a ferry leaving", 1, 1);
  // The panel's stream is cut, and its next openings refused, while the sequence changes.
  const attempts = [];
  let refusing = true;
  await page.route(`**/api/projects/${project}/events*`, (route) => {
    if (!refusing) return route.continue();
    attempts.push(Date.now());
    return route.abort("internetdisconnected");
  });
  await page.evaluate(() => window.stop());
  const sequence = await firstSequence(project);
  const change = {
    name: sequence.name,
    version: sequence.version,
    fps: sequence.fps,
    size: sequence.size,
    fit: sequence.fit,
    shots: sequence.shots.map((s) => ({ ...s, label: "Renamed elsewhere" })),
  };
  const put = await fetch(`${t.server.url}/api/projects/${project}/sequences/${sequence.id}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(change),
  });
  assert.equal(put.status, 200, await put.text());
  await waitUntil(() => attempts.length >= 3, { interval: 100 });
  const [first, second, third] = attempts;
  assert.ok(
    third - second > 1.5 * (second - first),
    `no back-off: ${attempts.map((a) => a - first)}`,
  );
  refusing = false;
  await panel.locator(".strip .shot-label", { hasText: "Renamed elsewhere" }).waitFor();
  await context.close();
});

test("the player stops in place, steps by frame, plays on from there, and shows a slate for a missing take", async () => {
  const project = "player-runs";
  const { context, page, panel } = await withShots(project, "a lantern swaying", 2, 2);
  const player = panel.getByRole("group", { name: "Sequence player" });
  assert.equal(
    await player.getAttribute("aria-keyshortcuts"),
    "Space J K L I O ArrowLeft ArrowRight",
  );
  const front = panel.locator(".sequence-screen video.front");
  const time = () => front.evaluate((v) => v.currentTime);
  await waitUntil(() => front.evaluate((v) => v.readyState >= 2));

  // Stopped: the arrow keys step one frame, within the shot.
  await player.focus();
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  await waitUntil(async () => Math.abs((await time()) - 2 / 24) < 0.001);
  await page.keyboard.press("ArrowLeft");
  await waitUntil(async () => Math.abs((await time()) - 1 / 24) < 0.001);

  // Stop pauses where it is; Play goes on from there.
  await panel.getByRole("button", { name: "Play sequence" }).click();
  await waitUntil(async () => (await time()) > 0.5);
  await panel.getByRole("button", { name: "Stop" }).click();
  const stoppedAt = await time();
  await page.evaluate(
    () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
  );
  assert.equal(await time(), stoppedAt, "paused in place");
  assert.ok(await front.evaluate((v) => v.paused));

  // Stop then Play at once: one run, so the second shot is not skipped.
  await panel.getByRole("button", { name: "Play sequence" }).click();
  await panel.getByRole("button", { name: "Stop" }).click();
  const shown = [];
  await page.exposeFunction("shotShown", (text) => shown.push(text));
  await page.evaluate(() => {
    const label = document.querySelector(".sequence-controls span");
    new MutationObserver(() => window.shotShown(label.textContent)).observe(label, {
      childList: true,
      characterData: true,
      subtree: true,
    });
  });
  await panel.getByRole("button", { name: "Play sequence" }).click();
  await panel.getByRole("button", { name: "Play sequence" }).waitFor({ timeout: 20_000 });
  assert.deepEqual(shown, ["Shot 2 (2 of 2)"], "each shot once, none skipped");

  // The take (both shots show it) is deleted: a slate shows for each shot's length, and the
  // run goes through both.
  const sequence = await firstSequence(project);
  await fetch(
    `${t.server.url}/api/projects/${project}/assets/${encodeURIComponent(sequence.shots[0].take)}`,
    { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}` } },
  );
  await waitUntil(
    async () => (await panel.locator(".strip").getByText("Take missing").count()) === 2,
  );
  await panel.getByRole("button", { name: "Previous shot" }).click();
  shown.length = 0;
  await panel.getByRole("button", { name: "Play sequence" }).click();
  await panel.getByTestId("sequence-slate").getByText("Take missing").waitFor();
  await panel.getByRole("button", { name: "Play sequence" }).waitFor({ timeout: 20_000 });
  assert.deepEqual(shown, ["Shot 2 (2 of 2)"], "the run went on past the slate");
  await context.close();
});

test("the editor fills the window over the dashboard, named in the address: a link or a reload opens it, Escape and Back close it, and J, K, L and Space play and stop", async () => {
  const project = "workspace-cut";
  const { context, page, panel, status } = await withShots(project, "a ferry leaving port", 2, 2);
  const editor = page.getByRole("dialog", { name: /^Sequence/ });
  const box = await editor.boundingBox();
  assert.deepEqual([box.x, box.y, box.width, box.height], [0, 0, 1440, 900], "the whole window");
  assert.equal(await page.locator("header.topbar").getAttribute("inert"), "", "the page behind");
  const { id } = await firstSequence(project);
  assert.equal(new URL(page.url()).search, `?cut=${id}`);

  // A reload opens the same sequence; a link opens the one it names.
  await page.reload();
  await waitUntil(async () => (await status.textContent()) === "2 shots, 4.00 s · Saved");
  const made = await fetch(`${t.server.url}/api/projects/${project}/sequences`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Linked" }),
  });
  const linked = (await made.json()).id;
  await page.goto(`${t.server.url}/${project}?cut=${linked}`);
  await panel.getByRole("heading", { name: "Sequence: Linked" }).waitFor();
  await panel.getByLabel("Open").selectOption({ label: "Sequence 1" });
  await panel.getByRole("heading", { name: "Sequence: Sequence 1" }).waitFor();
  await waitUntil(() => new URL(page.url()).search === `?cut=${id}`);

  // J, K, L and Space, with the focus anywhere but a text field.
  const front = panel.locator(".sequence-screen video.front");
  const time = () => front.evaluate((v) => v.currentTime);
  await waitUntil(() => front.evaluate((v) => v.readyState >= 2));
  await panel.getByRole("heading", { level: 2 }).focus();
  await page.keyboard.press("l");
  await panel.getByRole("button", { name: "Stop" }).waitFor();
  await waitUntil(async () => (await time()) > 1.2);
  await page.keyboard.press("k");
  await panel.getByRole("button", { name: "Play sequence" }).waitFor();
  const stopped = await time();
  await page.keyboard.press("j");
  await waitUntil(async () => Math.abs((await time()) - Math.max(0, stopped - 1)) < 0.01);
  await page.keyboard.press(" ");
  await panel.getByRole("button", { name: "Stop" }).waitFor();
  await page.keyboard.press(" ");
  await panel.getByRole("button", { name: "Play sequence" }).waitFor();
  // In a text field they are letters.
  await panel.locator(".strip button", { hasText: "Shot 1" }).click();
  await panel.getByLabel("Label").press("l");
  assert.equal(await panel.getByRole("button", { name: "Stop" }).count(), 0);
  await panel.getByLabel("Label").press("Backspace");

  // Escape closes it (the address loses ?cut=) and gives the focus back; Back closes it too.
  await panel.getByRole("heading", { level: 2 }).focus();
  await page.keyboard.press("Escape");
  await editor.waitFor({ state: "detached" });
  assert.equal(new URL(page.url()).search, "");
  const toggle = page.getByRole("button", { name: "Sequence", exact: true });
  assert.equal(await toggle.evaluate((b) => b === document.activeElement), true);
  await toggle.click();
  await editor.waitFor();
  await waitUntil(() => new URL(page.url()).search === `?cut=${id}`);
  await page.goBack();
  await editor.waitFor({ state: "detached" });
  assert.equal(new URL(page.url()).pathname, `/${project}`);
  assert.deepEqual(await audit(page), []);
  await context.close();
});

test("on the timeline a shot is as wide as its length and trimmed by its handles, and a sound clip is moved and trimmed, by pointer and by keyboard", async () => {
  const project = "timeline-cut";
  const { context, page, panel, status } = await withShots(project, "a crane at the docks", 2, 2);
  const saved = async (check) => {
    await waitUntil(async () => check(await firstSequence(project)));
    await waitUntil(async () => (await status.textContent()).endsWith("· Saved"));
  };
  const blocks = panel.locator(".strip li");
  const width = async (n) => (await blocks.nth(n).boundingBox()).width;

  // Shift+Left takes a second off the first shot's out point: it is half the second's width.
  await panel.getByRole("slider", { name: "Out point of Shot 1" }).press("Shift+ArrowLeft");
  await saved((s) => s.shots[0].out_s === 1);
  await waitUntil(async () => Math.abs((await width(0)) / (await width(1)) - 0.5) < 0.02);

  // The second shot's in point dragged half a second in.
  const second = panel.getByRole("slider", { name: "In point of Shot 2" });
  const perSecond = (await width(1)) / 2;
  const handle = await second.boundingBox();
  const [x, y] = [handle.x + handle.width / 2, handle.y + handle.height / 2];
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + perSecond / 4, y, { steps: 4 });
  await page.mouse.move(x + perSecond / 2, y, { steps: 4 });
  await page.mouse.up();
  await saved((s) => Math.abs(s.shots[1].in_s - 0.5) <= 1 / 24 + 1e-9);
  assert.equal(await status.textContent(), "2 shots, 2.50 s · Saved");

  // A 1 s tone on the music lane, moved a second on with Shift+Right, then dragged half a
  // second back; its in point a frame on (its start follows), its out point to its end.
  await panel.getByLabel("Upload sound").setInputFiles({
    name: "sting.wav",
    mimeType: "audio/wav",
    buffer: tone(1),
  });
  await panel.getByRole("button", { name: "Add to music" }).click();
  const track = panel.getByRole("group", { name: "Music track" });
  const body = track.getByRole("slider", { name: "Start of Music clip 1" });
  await body.press("Shift+ArrowRight");
  await saved((s) => s.lanes.music[0]?.start_s === 1);
  const clip = await body.boundingBox();
  const [cx, cy] = [clip.x + clip.width / 2, clip.y + clip.height / 2];
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  // The clip is a second long: half its width is half a second.
  await page.mouse.move(cx - clip.width / 2, cy, { steps: 6 });
  await page.mouse.up();
  await saved((s) => Math.abs(s.lanes.music[0].start_s - 0.5) <= 1 / 24 + 1e-9);
  const start = (await firstSequence(project)).lanes.music[0].start_s;
  await track.getByRole("slider", { name: "In point of Music clip 1" }).press("ArrowRight");
  await saved((s) => Math.abs(s.lanes.music[0].in_s - 1 / 24) < 1e-9);
  const moved = (await firstSequence(project)).lanes.music[0];
  assert.ok(Math.abs(moved.start_s - (start + 1 / 24)) < 1e-9, "its start follows its in point");
  const out = track.getByRole("slider", { name: "Out point of Music clip 1" });
  await out.press("Home");
  await saved((s) => Math.abs(s.lanes.music[0].out_s - 2 / 24) < 1e-9);
  await out.press("End");
  await saved((s) => s.lanes.music[0].out_s === 1);
  assert.deepEqual(await audit(page), []);
  await context.close();
});

test("moves, removals, undo and redo are said in one polite live region", async () => {
  const project = "announced";
  const { context, page, panel } = await withShots(project, "a bell tower", 1, 3);
  const region = panel.getByTestId("sequence-announcement");
  assert.equal(await region.getAttribute("aria-live"), "polite");
  assert.equal(await panel.locator('[aria-live="polite"]').count(), 1, "one live region");
  await panel.locator(".strip button", { hasText: "Shot 1" }).focus();
  await page.keyboard.press("Alt+ArrowRight");
  await waitUntil(async () => (await region.textContent()) === "Shot 1 moved to position 2 of 3");
  await page.keyboard.press("Control+z");
  await waitUntil(async () => (await region.textContent()) === "Undone: Shot 1");
  await page.keyboard.press("Control+Shift+z");
  await waitUntil(async () => (await region.textContent()) === "Redone: Shot 1");
  await panel.locator(".strip button", { hasText: "Shot 3" }).focus();
  await page.keyboard.press("Delete");
  await waitUntil(async () => (await region.textContent()) === "Shot 3 removed");
  await context.close();
});

test("on a 390 px phone the Sequence panel and a chosen shot's fields fit the screen", async () => {
  const project = "phone-cut";
  const { context, page, panel } = await withShots(project, "a tram in the rain", 1, 4);
  await page.setViewportSize({ width: 390, height: 844 });
  await panel.locator(".strip button", { hasText: "Shot 1" }).click();
  await panel.getByRole("spinbutton", { name: "Framing across (%)" }).waitFor();
  const widest = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    reach: Math.max(
      ...Array.from(document.querySelectorAll(".sequence-panel *"))
        .filter((element) => !element.closest(".strip"))
        .map((element) => element.getBoundingClientRect().right),
    ),
  }));
  assert.ok(widest.page <= 390, `the page is ${widest.page} px wide`);
  assert.ok(widest.reach <= 390, `something in the panel reaches ${widest.reach} px`);
  await context.close();
});

test("a shot's caption is saved with the sequence and shown over its picture as it plays", async () => {
  const project = "captioned";
  const { context, page, panel, status } = await withShots(project, "reeds at dusk", 2, 2);
  await panel.locator(".strip button", { hasText: "Shot 2" }).click();
  const caption = panel.getByRole("textbox", { name: "Caption" });
  await caption.fill("  MARY: Over the reeds \n\n now ");
  await caption.blur();
  await waitUntil(async () => (await firstSequence(project)).shots[1].caption !== null);
  await waitUntil(async () => (await status.textContent()).endsWith("· Saved"));
  const saved = await firstSequence(project);
  assert.deepEqual(
    saved.shots.map((s) => s.caption),
    [null, "MARY: Over the reeds\nnow"],
    "cleaned as the server keeps it",
  );
  assert.equal(await caption.inputValue(), "MARY: Over the reeds\nnow");

  // The player gives each video the caption of the shot it shows as its one cue, over the
  // shot's part of the take; the first shot has none.
  const cues = () =>
    panel.locator(".sequence-screen video.front").evaluate((video) => {
      const track = Array.from(video.textTracks).find((t) => t.kind === "captions");
      if (!track) return null;
      return {
        mode: track.mode,
        cues: Array.from(track.cues ?? []).map((c) => [c.startTime, c.endTime, c.text]),
        active: Array.from(track.activeCues ?? []).map((c) => c.text),
      };
    });
  await panel.getByRole("button", { name: "Play sequence" }).click();
  await waitUntil(async () => (await panel.textContent()).includes("Shot 2 (2 of 2)"));
  await waitUntil(async () => (await cues())?.active.length === 1);
  assert.deepEqual(await cues(), {
    mode: "showing",
    cues: [[0, 2, "MARY: Over the reeds\nnow"]],
    active: ["MARY: Over the reeds\nnow"],
  });

  // The captions file of the cut puts it at the second shot's time.
  const srt = await fetch(
    `${t.server.url}/api/projects/${project}/sequences/${saved.id}/captions.srt`,
    { headers: { authorization: `Bearer ${TOKEN}` } },
  );
  assert.equal(
    await srt.text(),
    "1\r\n00:00:02,000 --> 00:00:04,000\r\nMARY: Over the reeds\r\nnow\r\n\r\n",
  );
  assert.deepEqual(await audit(page), []);
  await context.close();
});

test("the cut's loudness is chosen and saved, and an export asks for a portrait size", async () => {
  const project = "portrait";
  const { context, page, panel, status } = await withShots(project, "a cyclist at dusk", 1, 2);
  await panel.getByRole("combobox", { name: "Loudness" }).selectOption("broadcast");
  await waitUntil(async () => (await firstSequence(project)).loudness === "broadcast");
  await waitUntil(async () => (await status.textContent()).endsWith("· Saved"));
  await panel.getByRole("combobox", { name: "Export size" }).selectOption("720x1280");
  // The player frames what the 9:16 export keeps of the 16:9 take: the middle 720 of its 2276
  // scaled columns.
  const screen = await panel.locator(".sequence-screen").boundingBox();
  const kept = await panel.getByTestId("sequence-crop").boundingBox();
  const width = (screen.width * 720) / 2276;
  const middle = screen.x + (screen.width - width) / 2;
  assert.ok(Math.abs(kept.x - middle) <= 2, `in the middle: ${kept.x}, not ${middle}`);
  assert.ok(Math.abs(kept.width - width) <= 2, `${kept.width} wide, not ${width}`);
  await panel.getByRole("button", { name: "Export MP4" }).click();
  await panel.getByText(/^Exporting/).waitFor();
  const headers = { authorization: `Bearer ${TOKEN}` };
  const assets = `${t.server.url}/api/projects/${project}/assets`;
  const exported = async () =>
    (await (await fetch(assets, { headers })).json()).videos.find((v) =>
      v.key.startsWith(`projects/${project}/sequence:`),
    );
  await waitUntil(async () => (await exported()) !== undefined);
  const played = await page.evaluate(
    async (url) => {
      const video = document.createElement("video");
      video.muted = true;
      video.src = url;
      await new Promise((done) => video.addEventListener("loadedmetadata", done, { once: true }));
      return [video.videoWidth, video.videoHeight];
    },
    (await exported()).public_url,
  );
  assert.deepEqual(played, [720, 1280]);
  const metadata = await (
    await fetch((await exported()).public_url.replace(/\.mp4$/, ".json"))
  ).json();
  assert.equal(metadata.lineage.loudness, "broadcast");
  assert.deepEqual(await audit(page), []);
  await context.close();
});

/** A WAV file (48 kHz, mono, 16-bit) of a 440 Hz tone at half scale, `seconds` long. */
function tone(seconds) {
  const rate = 48_000;
  const samples = Math.round(seconds * rate);
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write("WAVEfmt ", 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write("data", 36);
  wav.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) {
    wav.writeInt16LE(Math.round(16_383 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + i * 2);
  }
  return wav;
}

test("a sound uploaded in the panel is laid under a three-shot cut, trimmed, and heard in the preview and in its 9:16 export, a shot framed at its left edge", async () => {
  const project = "scored";
  const { context, page, panel, status } = await withShots(project, "a harbour at dawn", 2, 3);
  const saved = async (check) => {
    await waitUntil(async () => check(await firstSequence(project)));
    await waitUntil(async () => (await status.textContent()).endsWith("· Saved"));
  };

  // A file that is not sound is refused with the server's reason, and nothing is kept.
  const upload = panel.getByLabel("Upload sound");
  await upload.setInputFiles({
    name: "notes.txt",
    mimeType: "text/plain",
    buffer: Buffer.from("la la la"),
  });
  await panel.getByRole("alert").filter({ hasText: /sound/i }).waitFor();
  assert.equal(await panel.getByRole("combobox", { name: "Sound" }).count(), 0);

  // A 6 s tone, laid on the music lane: the whole cut (3 shots of 2 s).
  await upload.setInputFiles({ name: "bed.wav", mimeType: "audio/wav", buffer: tone(6) });
  await panel.getByRole("combobox", { name: "Sound" }).waitFor();
  await panel.getByRole("button", { name: "Add to music" }).click();
  const music = panel.getByRole("group", { name: "Music lane" });
  const clip = music.getByRole("group", { name: "Music clip 1: bed.wav" });
  await clip.waitFor();
  await saved((s) => s.lanes.music.length === 1);
  const laid = (await firstSequence(project)).lanes.music[0];
  assert.deepEqual([laid.start_s, laid.in_s, laid.out_s], [0, 0, 6]);

  // Trimmed to its first 2 s; undo brings the 6 s back, redo the trim again.
  const out = clip.getByRole("spinbutton", { name: "Out (s)", exact: true });
  await out.fill("2");
  await out.blur();
  await saved((s) => s.lanes.music[0].out_s === 2);
  await panel.getByRole("button", { name: "Undo" }).click();
  await saved((s) => s.lanes.music[0].out_s === 6);
  assert.equal(
    await panel.getByTestId("sequence-announcement").textContent(),
    "Undone: The music lane",
  );
  await panel.getByRole("button", { name: "Redo" }).click();
  await saved((s) => s.lanes.music[0].out_s === 2);
  const gain = clip.getByRole("spinbutton", { name: "Gain (dB)" });
  await gain.fill("-6");
  await gain.blur();
  await saved((s) => s.lanes.music[0].gain_db === -6);

  // The first shot's take is muted, and captioned.
  await panel.locator(".strip button", { hasText: "Shot 1" }).click();
  await panel.getByRole("checkbox", { name: "Mute its sound" }).check();
  // Framed at its take's left edge for the 9:16 cut; undone (centred again) and redone.
  const across = panel.getByRole("spinbutton", { name: "Framing across (%)" });
  await across.fill("0");
  await across.blur();
  await saved((s) => s.shots[0].reframe?.x === 0 && s.shots[0].reframe?.y === 0.5);
  await panel.getByRole("button", { name: "Undo" }).click();
  await saved((s) => s.shots[0].reframe === null);
  await panel.getByRole("button", { name: "Redo" }).click();
  await saved((s) => s.shots[0].reframe?.x === 0);
  assert.equal(await across.inputValue(), "0");
  const caption = panel.getByRole("textbox", { name: "Caption" });
  await caption.fill("MARA: The boats are back");
  await caption.blur();
  await saved((s) => s.shots[0].mute && s.shots[0].caption === "MARA: The boats are back");
  assert.deepEqual(await audit(page), []);

  // Played, the preview sounds as the export will: the first shot's own sound muted, the tone
  // under it 6 dB down (a peak near a quarter of full scale); Stop silences it. What reaches
  // the speakers is read by an analyser tapped into every connection to them.
  await page.evaluate(() => {
    const connect = AudioNode.prototype.connect;
    AudioNode.prototype.connect = function (target, ...rest) {
      if (target instanceof AudioDestinationNode) {
        const context = target.context;
        window.heard ??= context.createAnalyser();
        connect.call(this, window.heard);
      }
      return connect.call(this, target, ...rest);
    };
  });
  const loudest = (seconds) =>
    page.evaluate(async (seconds) => {
      const samples = new Float32Array(2048);
      let most = 0;
      const until = performance.now() + seconds * 1000;
      while (performance.now() < until) {
        window.heard?.getFloatTimeDomainData(samples);
        for (const sample of samples) most = Math.max(most, Math.abs(sample));
        await new Promise((frame) => requestAnimationFrame(frame));
      }
      return most;
    }, seconds);
  await panel.getByRole("button", { name: "Play sequence" }).click();
  await waitUntil(() => page.evaluate(() => window.heard !== undefined));
  const playing = await loudest(1.2);
  assert.ok(playing > 0.17 && playing < 0.36, `the tone 6 dB down in the preview: ${playing}`);
  await panel.getByRole("button", { name: "Stop" }).click();
  await waitUntil(async () => (await loudest(0.2)) < 0.001);

  // Exported at 9:16: the export plays at 720 x 1280, and its sound is the tone for the
  // first 2 s (6 dB down: a peak near a quarter of full scale) and silence after.
  await panel.getByRole("combobox", { name: "Export size" }).selectOption("720x1280");
  // The player frames what the 9:16 export keeps of the first shot's 16:9 take: the 720 of
  // its 2276 scaled columns at its left edge.
  const screen = await panel.locator(".sequence-screen").boundingBox();
  const kept = await panel.getByTestId("sequence-crop").boundingBox();
  assert.ok(Math.abs(kept.x - screen.x) <= 1.5, `at the left edge: ${kept.x} of ${screen.x}`);
  const width = (screen.width * 720) / 2276;
  assert.ok(Math.abs(kept.width - width) <= 2, `${kept.width} wide, not ${width}`);
  assert.ok(Math.abs(kept.height - screen.height) <= 1.5, "the whole height");
  await panel.getByRole("button", { name: "Export MP4" }).click();
  const headers = { authorization: `Bearer ${TOKEN}` };
  const assets = `${t.server.url}/api/projects/${project}/assets`;
  const exported = async () =>
    (await (await fetch(assets, { headers })).json()).videos.find((v) =>
      v.key.startsWith(`projects/${project}/sequence:`),
    );
  await waitUntil(async () => (await exported()) !== undefined, { timeout: 120_000 });
  const heard = await page.evaluate(
    async (url) => {
      const video = document.createElement("video");
      video.muted = true;
      video.src = url;
      await new Promise((done) => video.addEventListener("loadedmetadata", done, { once: true }));
      const bytes = await (await fetch(url)).arrayBuffer();
      const sound = await new OfflineAudioContext(1, 1, 48_000).decodeAudioData(bytes);
      const samples = sound.getChannelData(0);
      const peak = (from, to) => {
        let most = 0;
        for (let i = Math.round(from * sound.sampleRate); i < to * sound.sampleRate; i++)
          most = Math.max(most, Math.abs(samples[i]));
        return most;
      };
      return {
        size: [video.videoWidth, video.videoHeight],
        during: peak(0.5, 1.5),
        after: peak(2.5, 5.5),
      };
    },
    (await exported()).public_url,
  );
  assert.deepEqual(heard.size, [720, 1280]);
  assert.ok(heard.during > 0.17 && heard.during < 0.36, `the tone 6 dB down: ${heard.during}`);
  assert.ok(heard.after < 0.01, `silence after the clip: ${heard.after}`);

  // Behind the editor, the export is in the library, and its card plays it.
  await page.keyboard.press("Escape");
  await panel.waitFor({ state: "detached" });
  const card = page.locator(`.asset[data-key="${(await exported()).key}"]`);
  await card.hover();
  const preview = card.locator("video");
  await waitUntil(() => preview.evaluate((v) => v.currentTime > 0.5 && v.videoHeight === 1280), {
    timeout: 20_000,
  });
  await context.close();
});
