// Takes, as a user makes them: Takes 3 beside Generate makes three jobs of one shot, shown
// together with their numbers, each followed to DONE with its own seed.
import assert from "node:assert/strict";
import { test } from "node:test";
import { screenshot, serverAndPage, waitUntil } from "./harness.mjs";

const t = serverAndPage();

test("three takes of one prompt are made together and shown as one shot", async () => {
  await t.page.goto(`${t.server.url}/takes`);
  const takes = t.page.getByRole("combobox", { name: "Takes" });
  await takes.waitFor();
  assert.equal(await takes.inputValue(), "1");
  await takes.selectOption("3");
  await t.page
    .getByPlaceholder("Describe the video you want to generate...")
    .fill("Lanterns over a quiet harbour");
  await t.page.getByRole("button", { name: "Generate" }).click();
  const rows = t.page.locator("li.job.take");
  await waitUntil(async () => (await rows.count()) === 3);
  assert.deepEqual(await rows.locator(".take-label").allTextContents(), [
    "Take 1 of 3",
    "Take 2 of 3",
    "Take 3 of 3",
  ]);
  const shots = await rows.evaluateAll((els) => els.map((el) => el.dataset.shot));
  assert.equal(new Set(shots).size, 1, "one shot");
  assert.equal(shots[0], await rows.first().getAttribute("data-job-id"));
  assert.equal(await t.page.locator("li.job.same-shot").count(), 2);
  await waitUntil(
    async () => (await rows.locator(".badge").allTextContents()).every((badge) => badge === "DONE"),
    {
      between: () => t.page.evaluate(() => window.studio.pollActive()),
    },
  );
  // Each take has its own seed, and Takes stays as chosen for the next Generate.
  const seeds = await t.page.evaluate(async () => {
    const ids = [...document.querySelectorAll("li.job.take")].map((el) => el.dataset.jobId);
    const answers = await Promise.all(ids.map((id) => window.studio.checkStatus(id)));
    return answers.map((job) => job.seed);
  });
  assert.equal(new Set(seeds).size, 3, `three seeds: ${seeds}`);
  assert.equal(await takes.inputValue(), "3");
  await screenshot(t.page, "takes");
});
