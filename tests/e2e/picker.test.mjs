import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launch, screenshot, startServer } from "./harness.mjs";

let server, browser, page;

before(async () => {
  server = await startServer();
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test("the picker focuses the input, cleans ids and keeps five recent projects", async () => {
  await page.goto(server.url);
  const input = page.getByLabel("Project ID");
  assert.equal(await input.evaluate((el) => el === document.activeElement), true);
  const open = page.getByRole("button", { name: "Open Project" });
  assert.equal(await open.isDisabled(), true);
  await input.fill("   ");
  assert.equal(await open.isDisabled(), true);
  assert.equal(await page.locator(".how li").count(), 5);
  await screenshot(page, "picker-empty");

  await input.fill("My Project_1!");
  await open.click();
  await page.waitForURL(`${server.url}/my-project-1-`);
  await page.getByText("Project: my-project-1-").waitFor();

  for (const name of ["b", "c", "d", "e", "f", "c"]) {
    await page.goto(server.url);
    await page.getByLabel("Project ID").fill(name);
    await page.keyboard.press("Enter");
    await page.getByText(`Project: ${name}`).waitFor();
  }
  await page.goto(server.url);
  await page.reload();
  const recent = page.locator(".recent-item .recent-name");
  assert.deepEqual(await recent.allTextContents(), ["c", "f", "e", "d", "b"]);
  await screenshot(page, "picker-recent");

  await page.evaluate(() => localStorage.setItem("recent-projects", JSON.stringify(["Raw Name"])));
  await page.reload();
  await page.locator(".recent-item").first().click();
  await page.getByText("Project: Raw Name").waitFor();
  assert.equal(decodeURIComponent(new URL(page.url()).pathname), "/Raw Name");
});
