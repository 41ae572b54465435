// Parts loaded when first used (a panel's chunk, the sequence editor's wasm, the review page's
// wasm) that fail to load (a deploy while the tab is open, or offline): a message with Retry in
// the part's own area, the rest of the studio still there, and Retry loads it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { savedVideo, serverAndPage, shareLink } from "./harness.mjs";

const t = serverAndPage();

/** Fails every request for an asset matching `pattern` until the returned function is called. */
async function failing(page, pattern) {
  let failed = 0;
  const handler = (route) => {
    failed += 1;
    return route.abort("internetdisconnected");
  };
  await page.route(pattern, handler);
  return {
    count: () => failed,
    restore: () => page.unroute(pattern, handler),
  };
}

for (const [part, asset, open, shown] of [
  [
    "Sequence panel",
    "**/assets/SequencePanel-*.js",
    (page) => page.getByRole("button", { name: "Sequence", exact: true }).click(),
    (page) => page.getByRole("heading", { name: /^Sequence/ }),
  ],
  [
    "Sequence panel",
    "**/assets/studio_sequence_bg-*.wasm",
    (page) => page.getByRole("button", { name: "Sequence", exact: true }).click(),
    (page) => page.getByRole("heading", { name: /^Sequence/ }),
  ],
  [
    "Spend panel",
    "**/assets/SpendPanel-*.js",
    (page) => page.getByRole("button", { name: "Spend", exact: true }).click(),
    (page) => page.getByRole("heading", { name: "Spend" }),
  ],
]) {
  test(`the ${part} whose ${asset.split("/").pop()} fails to load offers Retry, and Retry loads it`, async () => {
    const context = await t.browser.newContext();
    const page = await context.newPage();
    const cut = await failing(page, asset);
    await page.goto(`${t.server.url}/load-${part.split(" ")[0].toLowerCase()}`);
    await open(page);
    const alert = page.getByRole("alert").filter({ hasText: `The ${part} could not be loaded` });
    await alert.waitFor();
    assert.ok(cut.count() >= 1, "the asset was asked for and failed");
    assert.equal(
      await page.getByRole("button", { name: "Generate", exact: true }).count(),
      1,
      "the studio is still there",
    );
    await cut.restore();
    await alert.getByRole("button", { name: "Retry" }).click();
    await shown(page).waitFor();
    assert.equal(await alert.count(), 0);
    await context.close();
  });
}

test("a review page whose wasm fails to load says so and offers Retry", async () => {
  const project = "load-review";
  const video = await savedVideo(t.server, project, "a harbour at noon", 1);
  const { url } = await shareLink(t.server, project, [video]);
  const context = await t.browser.newContext();
  const page = await context.newPage();
  const cut = await failing(page, "**/assets/studio_review_bg-*.wasm");
  await page.goto(url);
  await page.getByRole("alert").filter({ hasText: "could not be loaded" }).waitFor();
  await cut.restore();
  await page.getByRole("button", { name: "Retry" }).click();
  await page.locator(".review-item").waitFor();
  await context.close();
});
