// Everyone can use it: axe-core's WCAG 2.1 A and AA audit finds no serious or critical
// violation on the picker, the dashboard with jobs and a library, the Info dialog, Compare,
// the Spend panel, and a review link on a phone-sized screen.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  audit,
  serverAndPage,
  TOKEN,
  waitUntil,
  waitForDone,
  fromMenu,
  savedVideo,
} from "./harness.mjs";

const PROJECT = "audit";
const t = serverAndPage({ width: 1440, height: 900 });
const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

/** Renders and saves a 1 s video; answers its file name. */
const saved = async (prompt) => `${await savedVideo(t.server, PROJECT, prompt)}.mp4`;

async function clean(screen) {
  assert.deepEqual(await audit(t.page), [], `${screen}: serious or critical violations`);
}

test("the picker", async () => {
  await t.page.goto(t.server.url);
  await t.page.getByRole("button", { name: "Open Project" }).waitFor();
  await clean("the picker");
});

test("the dashboard with jobs and a library, the Info dialog, Compare and Spend", async () => {
  await saved("a heron over reeds");
  await saved("a kite above dunes");
  await t.page.goto(`${t.server.url}/${PROJECT}`);
  await waitUntil(async () => (await t.page.locator(".asset").count()) === 2);
  await t.page.getByRole("heading", { name: /^Jobs/ }).waitFor();
  await clean("the dashboard");

  const card = t.page.locator(".asset").first();
  await card.getByRole("button", { name: "Info" }).click();
  const info = t.page.getByRole("dialog");
  await info.locator(".modal-prompt").waitFor();
  await clean("the Info dialog");
  await t.page.keyboard.press("Escape");
  await info.waitFor({ state: "detached" });

  for (const each of await t.page.locator(".asset").all()) {
    await fromMenu(each, "Compare");
  }
  await t.page.getByRole("button", { name: "Compare (2)" }).click();
  await t.page.getByRole("dialog", { name: "Compare" }).waitFor();
  await clean("Compare");
  await t.page.keyboard.press("Escape");

  await t.page.getByRole("button", { name: "Spend" }).click();
  await t.page.getByRole("heading", { name: "Spend" }).waitFor();
  await clean("the Spend panel");
});

test("a review link on a phone", async () => {
  const name = await saved("a lighthouse at dusk");
  const shared = await fetch(`${t.server.url}/api/projects/${PROJECT}/shares`, {
    method: "POST",
    headers,
    body: JSON.stringify({ videos: [name], expires_in_hours: 1 }),
  });
  const { url } = await shared.json();
  const phone = await t.browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await phone.newPage();
  await page.goto(url);
  await page.locator("video").first().waitFor();
  assert.deepEqual(await audit(page), [], "the review page: serious or critical violations");
  await page.getByText("Content Credentials").click();
  await page.getByTestId("credentials").waitFor();
  assert.deepEqual(await audit(page), [], "its Content Credentials, open");
  await phone.close();
});

// Fails on badges that changed in silence and on rows of buttons all named alike: a screen
// reader heard no job finish, and "Save to Library" did not say which job it saves.
test("a job's new status is read out, and its buttons say which job they are for", async () => {
  await t.page.setViewportSize({ width: 1440, height: 900 });
  await t.page.goto(`${t.server.url}/announced`);
  await t.page.getByLabel("Prompt").fill("a lantern on a pier");
  await t.page.getByRole("button", { name: "Generate" }).click();
  const said = t.page.getByRole("status", { name: "Job status" });
  await waitForDone(t.page);
  await waitUntil(async () => (await said.textContent()) === "a lantern on a pier: done");
  const save = t.page.getByRole("button", { name: "Save to Library" });
  const description = await save.evaluate(
    (button) => document.getElementById(button.getAttribute("aria-describedby"))?.textContent,
  );
  assert.equal(description, "“a lantern on a pier”");
});
