import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  launch,
  screenshot,
  startFakes,
  startServer,
  TOKEN,
  waitForDone,
  waitUntil,
} from "./harness.mjs";

const t = {};
before(async () => {
  t.fakes = await startFakes(["--job-ms", "1500"]);
  t.server = await startServer({
    args: [
      ...["--openai-api-key", "fake-key", "--openai-base-url", `${t.fakes.url}/openai/v1`],
      ...["--runway-api-key", "fake-key", "--runway-base-url", `${t.fakes.url}/runway`],
      "--provider-poll-ms=100",
    ],
  });
  t.browser = await launch();
  t.page = await (await t.browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
});
after(async () => {
  await t.browser?.close();
  await t.server?.stop();
  await t.fakes?.stop();
});

test("a job on a hosted model, chosen in the console, is followed to the library", async () => {
  await t.page.goto(`${t.server.url}/hosted`);
  const model = t.page.getByRole("combobox", { name: "Model" });
  await model.waitFor();
  assert.deepEqual(await model.locator("option").allTextContents(), [
    "local-1",
    "sora-2",
    "gen4.5",
  ]);
  assert.equal(await model.inputValue(), "local-1");
  await model.selectOption("sora-2");
  await t.page
    .getByPlaceholder("Describe the video you want to generate...")
    .fill("A hot-air balloon over a canyon");
  await t.page.getByRole("button", { name: "Generate" }).click();
  const row = t.page.locator("li.job").first();
  await row.waitFor();
  const snapshot = () => t.page.evaluate(() => window.studio.snapshot());
  assert.match((await snapshot()).jobs.items[0].id, /^sora-2:task_/);
  await screenshot(t.page, "hosted-model-running");
  await waitForDone(t.page);
  await row.getByRole("button", { name: "Save to Library" }).click();
  const card = t.page.locator(".asset").first();
  await card.waitFor();
  assert.match(
    (await snapshot()).library.assets[0].key,
    /^projects\/hosted\/sora-2:task_\w+\.mp4$/,
  );
  await screenshot(t.page, "hosted-model-saved");
});

test("a server killed mid-job resumes every new provider's job without a second create", async () => {
  const fakes = await startFakes(["--job-ms", "8000"]);
  const args = [
    ...["--gemini-api-key", "fake-key", "--gemini-base-url", `${fakes.url}/gemini`],
    ...["--gemini-models", "veo-3.1=veo-3.1-generate-001", "--gemini-omni-models", ""],
    ...["--luma-api-key", "fake-key", "--luma-base-url", `${fakes.url}/luma`],
    ...["--kling-access-key", "fake-key", "--kling-secret-key", "fake-key-secret"],
    ...["--kling-base-url", `${fakes.url}/kling`],
    ...["--ark-api-key", "fake-key", "--ark-base-url", `${fakes.url}/ark`],
    ...["--replicate-api-token", "fake-key", "--replicate-base-url", `${fakes.url}/replicate`],
    "--provider-poll-ms=100",
    "--allow-local-provider-downloads",
  ];
  let server = await startServer({ args });
  const api = (path, init = {}) =>
    fetch(`${server.url}/api${path}`, {
      ...init,
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    });
  const count = async (kind) =>
    (await (await fetch(`${fakes.url}/_fake/count/${kind}`)).json()).count;
  const providers = ["gemini", "luma", "kling", "ark", "replicate"];
  try {
    const { models } = await (await api("/models")).json();
    const ids = [];
    for (const provider of providers) {
      const model = models.find((m) => m.provider === provider).id;
      const created = await api("/projects/crash/jobs", {
        method: "POST",
        body: JSON.stringify({ prompt: "A tram in the snow", model }),
      });
      assert.equal(created.status, 201, `${model}: ${await created.clone().text()}`);
      ids.push((await created.json()).sora_job_id);
    }
    // Every job is at its provider and still running there when the server dies: polled at
    // least once (progress), so its provider's id is on disk. "running" alone shows in memory
    // a moment before the record holding that id is written, and a kill in that moment leaves
    // a job the server must not send again (it ends in error, by design).
    await waitUntil(async () => {
      const jobs = await Promise.all(
        ids.map(async (id) => (await api(`/jobs/sora/${encodeURIComponent(id)}`)).json()),
      );
      return jobs.every((j) => j.status === "running" && j.progress > 0);
    });
    await server.kill();
    server = await startServer({ data: server.data, port: server.port, args });

    const page = await (await t.browser.newContext()).newPage();
    await page.goto(`${server.url}/crash`);
    const done = await waitUntil(async () => {
      const jobs = await Promise.all(
        ids.map(async (id) => (await api(`/jobs/sora/${encodeURIComponent(id)}`)).json()),
      );
      return jobs.every((j) => j.status === "done") && jobs;
    });
    assert.deepEqual(
      done.map((j) => j.provider),
      providers,
    );
    for (const provider of providers) {
      assert.equal(await count(`${provider}.create`), 1, `${provider}: one create, never a second`);
    }
    await page.locator("li.job").first().waitFor();
    await page.close();
  } finally {
    await server.stop();
    await fakes.stop();
  }
});
