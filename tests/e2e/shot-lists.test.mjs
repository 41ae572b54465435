// Shot lists from the editor: Generate all on Kling 3.0 (the provider fake) with neighbouring
// shots in one call, chosen in the estimate: three shots become one job, and its video is cut
// back into a take for each shot, which joins its shot in the storyboard.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { audit, launch, startFakes, startServer, TOKEN, waitUntil } from "./harness.mjs";

const PROJECT = "harbour";
const HEADERS = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const SCRIPT = `EXT. HARBOUR

A red kite rises slowly over the grey sea.

The old ferry turns hard toward the stone pier.

Gulls scatter as the horn sounds across the water.
`;

const t = {};
before(async () => {
  t.fakes = await startFakes(["--job-ms", "1500"]);
  t.server = await startServer({
    args: [
      ...["--kling-access-key", "fake-key", "--kling-secret-key", "fake-key-secret"],
      ...["--kling-base-url", `${t.fakes.url}/kling`],
      "--provider-poll-ms=100",
      "--allow-local-provider-downloads",
    ],
  });
  t.browser = await launch();
  t.page = await (await t.browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
});
after(async () => {
  await t.browser?.close();
  await t.server?.stop();
  await t.fakes?.stop();
});

async function api(path, init = {}) {
  const response = await fetch(`${t.server.url}/api${path}`, { headers: HEADERS, ...init });
  return response.json();
}

/** What Kling's fake answers for every finished job: a 15 s video made by the engine. */
async function providerVideo() {
  const job = await api(`/projects/${PROJECT}/jobs`, {
    method: "POST",
    body: JSON.stringify({ prompt: "the provider's video", seconds: 15, size: "320x180" }),
  });
  const url = `/jobs/sora/${encodeURIComponent(job.sora_job_id)}`;
  await waitUntil(async () => (await api(url)).status === "done");
  await api(`${url}/save`, {
    method: "POST",
    body: JSON.stringify({ project_id: PROJECT, prompt: "the provider's video" }),
  });
  const saved = await api(`/projects/${PROJECT}/assets/${job.sora_job_id}.mp4`);
  const video = await (await fetch(saved.public_url)).arrayBuffer();
  const put = await fetch(`${t.fakes.url}/_fake/video`, { method: "PUT", body: video });
  assert.equal(put.status, 204);
}

test("Generate all makes neighbouring shots in one Kling 3.0 call, cut back into their takes", async () => {
  await providerVideo();
  const imported = await fetch(`${t.server.url}/api/projects/${PROJECT}/sequences/import`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "text/plain" },
    body: SCRIPT,
  });
  const sequence = await imported.json();
  assert.equal(sequence.shots.length, 3);
  const page = t.page;
  await page.goto(`${t.server.url}/${PROJECT}?cut=${sequence.id}`);
  const panel = page.getByRole("region", { name: /^Sequence/ });
  await panel.locator(".strip .shot-label").first().waitFor();

  // The estimate offers the server's models; on one that makes shot lists, neighbouring
  // shots may go in one call, and the estimate says so before anything starts.
  await panel.getByRole("button", { name: "Generate all" }).click();
  const estimate = panel.getByTestId("estimate");
  await estimate.waitFor();
  assert.match(await estimate.textContent(), /^3 shots, 3 jobs/);
  const model = panel.getByRole("combobox", { name: "Model" });
  assert.equal(await model.inputValue(), "local-1");
  const together = panel.getByRole("checkbox", { name: /Neighbouring shots in one call/ });
  assert.equal(await together.count(), 0, "the embedded engine makes one shot a call");
  await model.selectOption("kling-v3");
  await together.waitFor();
  await together.check();
  await waitUntil(async () => /^3 shots, 1 job,/.test(await estimate.textContent()));
  assert.deepEqual(await audit(page), []);
  await panel.getByRole("button", { name: "Start 1 job" }).click();
  await panel.getByText("Started 1 jobs").waitFor();

  const { jobs } = await api(`/projects/${PROJECT}/jobs`);
  const call = jobs.filter((j) => j.model === "kling-v3");
  assert.equal(call.length, 1);
  assert.equal(call[0].shots.length, 3);

  // Done, the video is cut into three takes, each joining its own shot.
  await waitUntil(async () => (await panel.locator(".strip img").count()) === 3, {
    timeout: 120_000,
  });
  const stored = await api(`/projects/${PROJECT}/sequences/${sequence.id}`);
  assert.ok(stored.shots.every((s) => s.take !== null && s.takes.length === 1));
  const takes = stored.shots.map((s) => s.take);
  assert.equal(new Set(takes).size, 3, `three takes of their own: ${takes}`);
  assert.ok(
    takes.every((take) => /-shot\d\.mp4$/.test(take)),
    `${takes}`,
  );
});
