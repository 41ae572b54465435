import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launch, screenshot, startFakes, startServer, waitForDone } from "./harness.mjs";

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
