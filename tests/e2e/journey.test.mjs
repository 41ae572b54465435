import assert from "node:assert/strict";
import { test } from "node:test";
import {
  screenshot,
  serverAndPage,
  startServer,
  TOKEN,
  waitForDone,
  waitUntil,
} from "./harness.mjs";

const PROJECT = "journey";
const t = serverAndPage({ width: 1440, height: 900 });

test("generate, watch, play, save and inspect a video", async () => {
  await t.page.goto(`${t.server.url}/${PROJECT}`);
  await t.page.getByText("No generation jobs yet.").waitFor();
  await t.page
    .getByText("No videos saved yet. Generate and save some videos to see them here.")
    .waitFor();
  const generate = t.page.getByRole("button", { name: "Generate" });
  assert.equal(await generate.isDisabled(), true);
  await screenshot(t.page, "dashboard-empty");

  await t.page
    .getByPlaceholder("Describe the video you want to generate...")
    .fill("A red fox running through a snowy forest at sunset");
  await generate.click();
  const row = t.page.locator("li.job").first();
  await row.waitFor();
  assert.equal(
    await row.locator(".job-prompt").textContent(),
    "“A red fox running through a snowy forest at sunset”",
  );
  // The creation time as the browser itself formats it (locale and zone; see dates.test.mjs).
  const expected = await t.page.evaluate(() =>
    new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" }).format(
      new Date(window.studio.jobs()[0].created_at),
    ),
  );
  assert.equal(await row.locator("time").textContent(), expected);
  // The prompt sent is cleared when the create answers; the server's event may show the job
  // before that answer arrives.
  const prompt = t.page.getByPlaceholder("Describe the video you want to generate...");
  await waitUntil(async () => (await prompt.inputValue()) === "", { interval: 50 });
  await t.page.getByRole("heading", { name: "Jobs (1)" }).waitFor();

  await waitUntil(
    async () => /^(RUNNING \d+%|DONE)$/.test(await row.locator(".badge").textContent()),
    {
      interval: 100,
      between: () =>
        row
          .getByRole("button", { name: "Check Status" })
          .click()
          .catch(() => {}),
    },
  );
  if ((await row.locator(".badge").textContent()) !== "DONE") {
    await row.getByText("Generating video...").waitFor();
    await screenshot(t.page, "job-running");
  }

  await waitForDone(t.page);
  const video = row.locator("video.player");
  await video.waitFor();
  const playback = await video.evaluate(async (el) => {
    el.muted = true;
    await el.play();
    const start = el.currentTime;
    await new Promise((r) => setTimeout(r, 600));
    const advanced = el.currentTime > start;
    el.currentTime = 7.5;
    await new Promise((r) => el.addEventListener("seeked", r, { once: true }));
    return { readyState: el.readyState, advanced, seekedTo: el.currentTime, duration: el.duration };
  });
  assert.ok(playback.readyState >= 3, `readyState ${playback.readyState}`);
  assert.ok(playback.advanced, "currentTime advances while playing");
  assert.ok(Math.abs(playback.seekedTo - 7.5) < 0.6, `seeked to ${playback.seekedTo}`);
  assert.ok(Math.abs(playback.duration - 10) < 0.2, `duration ${playback.duration}`);
  await screenshot(t.page, "job-done");

  await row.getByRole("button", { name: "Save to Library" }).click();
  await row.getByText("✓ Saved to library").waitFor();
  assert.equal(await row.getByRole("button", { name: "Save to Library" }).count(), 0);
  const card = t.page.locator(".asset").first();
  await card.waitFor();
  await t.page.getByRole("heading", { name: "Asset Library (1 videos)" }).waitFor();
  const jobId = await row.getAttribute("data-job-id");
  assert.equal(
    await card.locator(".asset-title").textContent(),
    jobId.split(":task_")[1].slice(0, 20),
  );
  assert.match(await card.textContent(), /\d+\.\d\d MB/);
  assert.equal(await card.locator(".duration").textContent(), "10s");
  await screenshot(t.page, "library");

  await card.getByRole("button", { name: "Info" }).click();
  const dialog = t.page.getByRole("dialog");
  await dialog
    .locator(".modal-prompt")
    .getByText("A red fox running through a snowy forest at sunset")
    .waitFor();
  const text = await dialog.textContent();
  for (const part of [
    "Video Metadata",
    "Basic Info",
    `${jobId}.mp4`,
    "MB",
    "Technical Details",
    '"codec": "h264"',
  ]) {
    assert.ok(text.includes(part), `modal shows ${part}`);
  }
  // Its Content Credentials, read by the server from the file itself.
  const credentials = dialog.getByTestId("credentials");
  await credentials.waitFor();
  assert.match(await credentials.textContent(), /Made with AI by local\/local-1/);
  assert.match(await credentials.textContent(), /Valid, from a signer validators do not trust yet/);
  await screenshot(t.page, "modal");
  await dialog.getByRole("button", { name: "Close" }).click();
  await dialog.waitFor({ state: "detached" });
  await card.getByRole("button", { name: "Info" }).click();
  await dialog.waitFor();
  await t.page.mouse.click(5, 5);
  await dialog.waitFor({ state: "detached" });
  await card.getByRole("button", { name: "Info" }).click();
  await dialog.waitFor();
  await t.page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });

  const [popup] = await Promise.all([
    t.context.waitForEvent("page"),
    card.getByRole("button", { name: "Play" }).click(),
  ]);
  await popup.waitForLoadState();
  assert.equal(popup.url(), `${t.server.url}/media/projects/${PROJECT}/${jobId}.mp4`);
  await popup.close();
});

test("jobs survive a t.page reload and a t.server crash", async () => {
  await t.page.reload();
  await t.page.locator("li.job").first().waitFor();
  assert.equal(await t.page.locator("li.job").count(), 1);
  await t.page
    .getByPlaceholder("Describe the video you want to generate...")
    .fill("rain over a neon city at night");
  await t.page.getByRole("button", { name: "Generate" }).click();
  await t.page.getByRole("heading", { name: "Jobs (2)" }).waitFor();

  const port = t.server.port;
  await t.server.kill();
  t.server = await startServer({ data: t.server.data, port });
  await t.page.reload();
  await t.page.getByRole("heading", { name: "Jobs (2)" }).waitFor();
  await waitForDone(t.page);
  await t.page.locator(".asset").first().waitFor();
});

test("the browser-console API creates a job and reads the job list", async () => {
  const result = await t.page.evaluate(async () => {
    const job = await window.studio.createJob("made from the console");
    return { id: job.sora_job_id, jobs: window.studio.jobs().map((j) => j.prompt) };
  });
  assert.match(result.id, /^local-1:task_[0-9a-z]{26}$/);
  assert.equal(result.jobs[0], "made from the console");
  await t.page.getByText("“made from the console”").waitFor();
});

test("a phone-sized view stacks the panels", async () => {
  await t.page.setViewportSize({ width: 390, height: 844 });
  await t.page.reload();
  await t.page.locator("li.job").first().waitFor();
  const [consoleBox, libraryBox] = await Promise.all([
    t.page.locator(".console").boundingBox(),
    t.page.locator(".library").boundingBox(),
  ]);
  assert.ok(libraryBox.y >= consoleBox.y + consoleBox.height, "library below console");
  await screenshot(t.page, "phone");
});

test("a library of six videos", async () => {
  const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
  const prompts = [
    "sunset over the sea",
    "neon city rain",
    "a green forest",
    "snow falling",
    "fire dancing",
    "calm blue lake",
  ];
  const ids = [];
  for (const prompt of prompts) {
    const body = JSON.stringify({ prompt, seconds: 2, size: "640x360" });
    const job = await (
      await fetch(`${t.server.url}/api/projects/six/jobs`, { method: "POST", headers, body })
    ).json();
    ids.push(job.sora_job_id);
  }
  for (const id of ids) {
    const url = `${t.server.url}/api/jobs/sora/${encodeURIComponent(id)}`;
    await waitUntil(async () => (await (await fetch(url, { headers })).json()).status === "done");
    const body = JSON.stringify({ project_id: "six", prompt: "" });
    const saved = await fetch(`${url}/save`, { method: "POST", headers, body });
    assert.equal(saved.status, 200);
  }
  await t.page.setViewportSize({ width: 1440, height: 900 });
  const media = [];
  const collect = async (response) => {
    if (!response.url().includes("/media/")) return;
    media.push({ url: response.url(), bytes: (await response.body().catch(() => "")).length });
  };
  t.page.on("response", collect);
  await t.page.goto(`${t.server.url}/six`);
  await t.page.getByRole("heading", { name: "Asset Library (6 videos)" }).waitFor();
  // Every card shows its poster, and opening the library loads no video at all.
  const library = (m) => m.url.includes("/media/projects/six/") && m.url.endsWith(".jpg");
  await waitUntil(async () => media.filter(library).length === 6);
  await t.page.waitForFunction(() => document.readyState === "complete");
  t.page.off("response", collect);
  assert.deepEqual(
    media.filter((m) => !m.url.endsWith(".jpg")),
    [],
    "no video bytes on open (the job list's players show posters too)",
  );
  const total = media.reduce((sum, m) => sum + m.bytes, 0);
  assert.ok(total < 1_000_000, `posters only: ${total} bytes`);
  await screenshot(t.page, "library-six");
});
