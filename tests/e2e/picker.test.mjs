import assert from "node:assert/strict";
import { test } from "node:test";
import { screenshot, serverAndPage } from "./harness.mjs";

const t = serverAndPage();

test("the picker focuses the input, cleans ids and keeps five recent projects", async () => {
  await t.page.goto(t.server.url);
  const input = t.page.getByLabel("Project ID");
  assert.equal(await input.evaluate((el) => el === document.activeElement), true);
  const open = t.page.getByRole("button", { name: "Open Project" });
  assert.equal(await open.isDisabled(), true);
  await input.fill("   ");
  assert.equal(await open.isDisabled(), true);
  assert.equal(await t.page.locator(".how li").count(), 5);
  await screenshot(t.page, "picker-empty");

  await input.fill("My Project_1!");
  await open.click();
  await t.page.waitForURL(`${t.server.url}/my-project-1-`);
  await t.page.getByText("Project: my-project-1-").waitFor();

  for (const name of ["b", "c", "d", "e", "f", "c"]) {
    await t.page.goto(t.server.url);
    await t.page.getByLabel("Project ID").fill(name);
    await t.page.keyboard.press("Enter");
    await t.page.getByText(`Project: ${name}`).waitFor();
  }
  await t.page.goto(t.server.url);
  await t.page.reload();
  const recent = t.page.locator(".recent-item .recent-name");
  await recent.nth(4).waitFor();
  assert.deepEqual(await recent.allTextContents(), ["c", "f", "e", "d", "b"]);
  await screenshot(t.page, "picker-recent");

  await t.page.evaluate(() =>
    localStorage.setItem("recent-projects", JSON.stringify(["Raw Name"])),
  );
  await t.page.reload();
  await t.page.locator(".recent-item").first().click();
  await t.page.getByText("Project: Raw Name").waitFor();
  assert.equal(decodeURIComponent(new URL(t.page.url()).pathname), "/Raw Name");
});
