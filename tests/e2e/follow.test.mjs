// Jobs that follow the project across browsers: two browser contexts (two browsers' worth of
// storage) on one project against one server-stub.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launch, screenshot, startServer, TOKEN, waitUntil, fromMenu } from "./harness.mjs";

const PROJECT = "shared-reel";
const t = {};

before(async () => {
  t.server = await startServer();
  t.browser = await launch();
  t.a = await (await t.browser.newContext()).newPage();
  t.b = await (await t.browser.newContext()).newPage();
});

after(async () => {
  await t.browser?.close();
  await t.server?.stop();
});

async function api(method, path, body) {
  const response = await fetch(`${t.server.url}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: body && JSON.stringify(body),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}

const streamOpen = (page) =>
  waitUntil(() => page.evaluate(() => window.studio.view("jobs").stream === "open"));

const row = (page, id) => page.locator(`li.job[data-job-id="${id}"]`);

async function open(page) {
  await page.goto(`${t.server.url}/${PROJECT}`);
  await page.getByRole("heading", { name: "Generation Console" }).waitFor();
  await streamOpen(page);
}

test("a job started in A appears in B and its progress moves there by push alone", async () => {
  // B may list the project's jobs once, on entering; every later list and every status poll
  // fails, so whatever B learns after that came through the stream.
  let lists = 0;
  await t.b.route(`**/api/projects/${PROJECT}/jobs`, (route) =>
    route.request().method() === "GET" && ++lists > 1 ? route.abort() : route.continue(),
  );
  await t.b.route("**/api/jobs/sora/*", (route) =>
    route.request().method() === "GET" ? route.abort() : route.continue(),
  );
  await open(t.a);
  await open(t.b);
  await t.b.getByText("No generation jobs yet.").waitFor();

  // Long enough a render that its progress moves through several pushes even on a free,
  // fast machine (a default job there went from its first push at 99 % to done).
  const created = await t.a.evaluate(() => {
    window.studio.setSeconds(12);
    window.studio.setSize("1280x720");
    return window.studio.createJob("a paper boat drifting down a rainy street");
  });
  const id = created.sora_job_id;
  t.done = id;
  const badge = row(t.b, id).locator(".badge");
  await badge.waitFor();
  const seen = new Set();
  await waitUntil(
    async () => {
      const text = await badge.textContent();
      seen.add(text);
      return text === "DONE";
    },
    { interval: 20 },
  );
  const running = [...seen].filter((text) => /^RUNNING \d+%$/.test(text));
  assert.ok(running.length >= 2, `B saw the progress move: ${[...seen].join(", ")}`);
  await row(t.b, id).locator("video.player").waitFor();
  assert.ok(lists >= 1);
  await t.b.unrouteAll();
  await screenshot(t.b, "follow-pushed");
});

test("a video saved in A shows in B's library and as saved there; deleted in A, it leaves B", async () => {
  const saved = (page) => row(page, t.done).getByText("Saved to library");
  const card = (page) => page.locator(`.asset[data-key="projects/${PROJECT}/${t.done}.mp4"]`);
  await row(t.b, t.done).getByRole("button", { name: "Save to Library" }).waitFor();
  assert.equal(await card(t.b).count(), 0);
  await row(t.a, t.done).getByRole("button", { name: "Save to Library" }).click();
  await saved(t.a).waitFor();
  // The server tells every client of the save and of the key the job was saved as: B learns
  // both by push alone.
  await saved(t.b).waitFor();
  await card(t.b).waitFor();
  assert.equal(await row(t.b, t.done).getByRole("button", { name: "Save to Library" }).count(), 0);
  const stored = await t.b.evaluate(
    ([key, id]) => JSON.parse(localStorage.getItem(key)).find((j) => j.sora_job_id === id),
    [`jobs:${PROJECT}`, t.done],
  );
  assert.equal(stored.final_r2_key, `projects/${PROJECT}/${t.done}.mp4`);

  t.a.once("dialog", (dialog) => dialog.accept());
  await fromMenu(card(t.a), "Delete");
  await card(t.b).waitFor({ state: "detached" });
  await row(t.b, t.done).getByRole("button", { name: "Save to Library" }).waitFor();
});

test("cancel in B ends the job everywhere; retry makes an equal job; remove removes it", async () => {
  const long = { prompt: "a slow pan across a mountain range", seconds: 20, size: "1920x1080" };
  const { body: job } = await api("POST", `/projects/${PROJECT}/jobs`, long);
  const id = job.sora_job_id;
  await row(t.a, id).waitFor();
  const cancel = row(t.b, id).getByRole("button", { name: "Cancel" });
  await cancel.click();

  for (const page of [t.a, t.b]) {
    await waitUntil(async () => (await row(page, id).locator(".badge").textContent()) === "ERROR");
    assert.equal(await row(page, id).locator(".job-error").textContent(), "Cancelled");
  }
  const { body: stopped } = await api("GET", `/jobs/sora/${encodeURIComponent(id)}`);
  assert.equal(stopped.status, "error");
  assert.equal(stopped.error, "Cancelled");

  await row(t.b, id).getByRole("button", { name: "Retry" }).click();
  const retried = await waitUntil(async () => {
    const { body } = await api("GET", `/projects/${PROJECT}/jobs`);
    return body.jobs.find((j) => j.sora_job_id !== id && j.prompt === long.prompt);
  });
  assert.equal(retried.seconds, 20);
  assert.equal(retried.size, "1920x1080");
  assert.equal(retried.model, job.model);
  await row(t.a, retried.sora_job_id).waitFor();
  await api("POST", `/jobs/sora/${encodeURIComponent(retried.sora_job_id)}/cancel`);

  await fromMenu(row(t.a, id), "Remove");
  await row(t.b, id).waitFor({ state: "detached" });
  await row(t.a, id).waitFor({ state: "detached" });
  assert.equal((await api("GET", `/jobs/sora/${encodeURIComponent(id)}`)).status, 404);
});

test("a browser whose storage was cleared gets its jobs back", async () => {
  const before = await t.a.evaluate(() => window.studio.jobs().length);
  assert.ok(before >= 2);
  await t.b.evaluate(() => localStorage.clear());
  await open(t.b);
  await waitUntil(async () => (await t.b.locator("li.job").count()) === before);
  const stored = await t.b.evaluate(
    (key) => JSON.parse(localStorage.getItem(key)),
    `jobs:${PROJECT}`,
  );
  assert.equal(stored.length, before);
  assert.ok(stored.every((j) => "final_r2_key" in j && j.created_at && j.prompt));
});

test("a stream cut by a server crash recovers by itself: polling, then the stream again", async () => {
  const { port, data } = t.server;
  await t.server.kill();
  await waitUntil(() => t.b.evaluate(() => window.studio.view("jobs").stream !== "open"));
  t.server = await startServer({ port, data });
  // The next 20 s round lists the jobs, polls the active ones and opens the stream again.
  await streamOpen(t.b);
  const { body: job } = await api("POST", `/projects/${PROJECT}/jobs`, {
    prompt: "a lighthouse beam sweeping over fog",
  });
  const badge = row(t.b, job.sora_job_id).locator(".badge");
  await badge.waitFor();
  await waitUntil(async () => (await badge.textContent()) === "DONE");
});

test("a stream that ends is opened again after the wait its server asked for, not at the next 20 s round", async () => {
  const page = await (await t.browser.newContext()).newPage();
  // The first stream asks for a 200 ms wait and ends at once; the next ones are the server's.
  let streams = 0;
  await page.route(`**/api/projects/${PROJECT}/events`, (route) =>
    ++streams === 1
      ? route.fulfill({
          status: 200,
          headers: { "content-type": "text/event-stream" },
          body: "retry: 200\n\n",
        })
      : route.continue(),
  );
  await page.goto(`${t.server.url}/${PROJECT}`);
  await page.getByRole("heading", { name: "Generation Console" }).waitFor();
  // Well inside the 20 s round that used to be the only way back.
  await waitUntil(
    () => streams >= 2 && page.evaluate(() => window.studio.view("jobs").stream === "open"),
    { timeout: 12_000 },
  );
  await page.context().close();
});
