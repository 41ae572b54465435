// Bounded spending against the provider fakes, with real processes: the active-job cap answers
// 429 and the app shows the spec's banner; a kill -9 between "submitting" and the provider's
// answer never leads to a second create (the job is found at the provider instead).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launch, screenshot, startFakes, startServer, TOKEN, waitUntil } from "./harness.mjs";

const running = [];
let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
  for (const process of running.reverse()) await process.stop().catch(() => {});
});

async function started(promise) {
  const process = await promise;
  running.push(process);
  return process;
}

const hosted = (fakes) => [
  ...["--openai-api-key", "fake-key", "--openai-base-url", `${fakes.url}/openai/v1`],
  ...["--default-model", "sora-2", "--provider-poll-ms=100"],
];

async function api(server, method, path, body) {
  const response = await fetch(`${server.url}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: body && JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const creates = async (fakes) =>
  (await (await fetch(`${fakes.url}/_fake/count/openai.create`)).json()).count;

test("over the active-job cap, a create gets 429 and the app shows the spec's banner", async () => {
  const fakes = await started(startFakes(["--job-ms", "60000"]));
  const server = await started(
    startServer({ args: [...hosted(fakes), "--max-active-per-project", "1"] }),
  );
  const page = await browser.newPage();
  await page.goto(`${server.url}/capped`);
  const prompt = page.getByPlaceholder("Describe the video you want to generate...");
  await prompt.fill("a long hosted render");
  await page.getByRole("button", { name: "Generate" }).click();
  await page.locator("li.job").first().waitFor();
  assert.equal(await page.getByRole("alert").count(), 0);
  await prompt.fill("one more while the first runs");
  await page.getByRole("button", { name: "Generate" }).click();
  await page.getByRole("alert").getByText("Failed to create generation job").waitFor();
  assert.equal(await page.locator("li.job").count(), 1, "the refused job is not listed");
  await screenshot(page, "job-cap-banner");
  const refused = await api(server, "POST", "/projects/capped/jobs", { prompt: "and another" });
  assert.equal(refused.status, 429);
  assert.equal(refused.body.error.code, "too_many_requests");
  assert.equal(await creates(fakes), 1, "only the admitted job reached the provider");
});

test("a kill -9 while the provider has not yet answered never submits the job twice", async () => {
  const fakes = await started(startFakes(["--create-delay-ms", "4000", "--job-ms", "1000"]));
  const first = await startServer({ args: hosted(fakes) });
  const created = await api(first, "POST", "/projects/crash/jobs", { prompt: "a storm at sea" });
  assert.equal(created.status, 201);
  const id = created.body.sora_job_id;
  await waitUntil(async () => (await creates(fakes)) === 1, { timeout: 10_000 });
  await first.kill();
  // The restarted server asks the gateway (its list of videos) instead of sending it again,
  // finds the job and follows it to the end.
  const second = await started(startServer({ data: first.data, args: hosted(fakes) }));
  const job = await waitUntil(
    async () => {
      const { body } = await api(second, "GET", `/jobs/sora/${encodeURIComponent(id)}`);
      return ["done", "error"].includes(body.status) && body;
    },
    { timeout: 20_000 },
  );
  assert.equal(job.status, "done", job.error);
  assert.equal(await creates(fakes), 1, "one create at the provider");
});
