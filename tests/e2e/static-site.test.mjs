import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launch, startServer, startStaticSite, TOKEN, waitForDone } from "./harness.mjs";

let server, site, browser;

before(async () => {
  const config = {};
  site = await startStaticSite(config);
  // CORS is for listed origins only: the operator names the site's origin.
  server = await startServer({ args: ["--cors-origins", site.url] });
  Object.assign(config, { apiBase: `${server.url}/api`, token: TOKEN });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  site?.close();
  await server?.stop();
});

test("the built site on another origin talks to server-stub through CORS", async () => {
  const page = await browser.newPage();
  await page.goto(`${site.url}/`);
  await page.getByLabel("Project ID").fill("Elsewhere");
  await page.getByRole("button", { name: "Open Project" }).click();
  await page.getByText("Project: elsewhere").waitFor();
  await page.getByText("No videos saved yet.", { exact: false }).waitFor();
  await page.getByLabel("Prompt").fill("a yellow kite flying");
  await page.getByRole("button", { name: "Generate" }).click();
  const row = await waitForDone(page);
  await row.getByRole("button", { name: "Save to Library" }).click();
  await row.getByText("✓ Saved to library").waitFor();
  const card = page.locator(".asset").first();
  await card.waitFor();
  assert.equal(await page.getByRole("alert").count(), 0, "no banner: every call went through");
  const poster = await card.locator("img.poster").getAttribute("src");
  assert.ok(poster.startsWith(`${server.url}/media/projects/elsewhere/`), poster);
});
