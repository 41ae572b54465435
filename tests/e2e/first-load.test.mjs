// The bytes a first visit moves over the wire, counted by Chromium itself, against the budget in
// first-load-budget.json. A route past its budget fails the run and the table shows what grew
// against the sizes recorded there. The API's and the media's answers are data, not the app:
// they are listed apart and not counted. `FIRST_LOAD_RECORD=1` writes the sizes of this run
// into the file as the new record (the budgets stay as they are: raising one is a decision).
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launch, savedVideo, startServer, TOKEN } from "./harness.mjs";

const BUDGET_FILE = join(import.meta.dirname, "first-load-budget.json");
const BUDGET = JSON.parse(readFileSync(BUDGET_FILE, "utf8"));

let server, browser, reviewPath;

before(async () => {
  server = await startServer();
  browser = await launch();
  // A review link to one saved video, as a client gets it.
  const video = await savedVideo(server, "first-load-review", "a lighthouse at dusk");
  const shared = await fetch(`${server.url}/api/projects/first-load-review/shares`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ videos: [`${video}.mp4`] }),
  });
  reviewPath = new URL((await shared.json()).url).pathname;
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (process.env.FIRST_LOAD_RECORD) {
    writeFileSync(BUDGET_FILE, `${JSON.stringify(BUDGET, null, 2)}\n`);
  }
});

/** A file's name without Vite's content hash: `index-BGdf_P0L.js` -> `index.js`. */
const named = (url) => {
  const { pathname } = new URL(url);
  if (pathname === "/" || !pathname.includes(".")) return "page (HTML)";
  return pathname
    .split("/")
    .pop()
    .replace(/-[\w-]{8}(\.\w+)$/, "$1");
};

/** Every finished response of a fresh visit to `path` (empty cache) with its bytes on the wire,
 * once the page has loaded and `ready` is on the screen (an open project keeps its event stream
 * open, so the network never goes quiet). */
async function visit(path, ready, viewport) {
  const context = await browser.newContext(viewport ? { viewport, isMobile: true } : {});
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  const urls = new Map();
  const bytes = new Map();
  const asked = [];
  cdp.on("Network.requestWillBeSent", (e) =>
    asked.push({ url: e.request.url, by: e.initiator.type }),
  );
  cdp.on("Network.responseReceived", (e) => urls.set(e.requestId, e.response.url));
  cdp.on("Network.loadingFinished", (e) => bytes.set(e.requestId, e.encodedDataLength));
  await page.goto(`${server.url}${path}`);
  await page.waitForLoadState("load");
  await ready(page).waitFor();
  await context.close();
  const responses = [...bytes].map(([id, size]) => ({ url: urls.get(id), size }));
  // data: addresses (the favicon) move nothing over the wire.
  return { responses: responses.filter((r) => r.url?.startsWith("http")), asked };
}

function report(route, responses) {
  const app = responses.filter((r) => !/\/(api|media)\//.test(new URL(r.url).pathname));
  const data = responses.filter((r) => !app.includes(r));
  const total = app.reduce((sum, r) => sum + r.size, 0);
  const recorded = BUDGET.recorded[route] ?? {};
  console.log(`\nfirst load of ${route}: ${total} bytes (budget ${BUDGET.budget_bytes[route]})`);
  for (const { url, size } of app.sort((a, b) => b.size - a.size)) {
    const name = named(url);
    const before = recorded[name];
    const change =
      before === undefined ? "new" : `${size - before >= 0 ? "+" : ""}${size - before}`;
    console.log(`  ${String(size).padStart(8)}  ${name.padEnd(28)} ${change}`);
  }
  for (const name of Object.keys(recorded)) {
    if (!app.some((r) => named(r.url) === name)) console.log(`  ${"gone".padStart(8)}  ${name}`);
  }
  console.log(`  not counted (data): ${data.map((r) => new URL(r.url).pathname).join(", ")}`);
  BUDGET.recorded[route] = Object.fromEntries(app.map((r) => [named(r.url), r.size]));
  return total;
}

/** A phone, as a client opening a review link from mail often is. */
const PHONE = { width: 390, height: 844 };

for (const [route, ready, preloaded, viewport] of [
  [
    "/",
    (page) => page.getByRole("button", { name: "Open Project" }),
    [/\/studio_core_bg-[\w-]+\.wasm$/, /\/config\.json$/],
  ],
  [
    "/first-load",
    (page) => page.getByText("No videos saved yet.", { exact: false }),
    [/\/studio_core_bg-[\w-]+\.wasm$/, /\/config\.json$/],
  ],
  [
    "/review/<token>",
    (page) => page.getByRole("button", { name: "Approve" }),
    [/\/studio_review_bg-[\w-]+\.wasm$/],
    PHONE,
  ],
]) {
  test(`the first load of ${route} stays within its budget on the wire`, async () => {
    const path = route === "/review/<token>" ? reviewPath : route;
    const { responses, asked } = await visit(path, ready, viewport);
    const total = report(route, responses);
    assert.ok(total > 0, "something was counted");
    // The page's head asks for its wasm (and the studio's config), so they download beside
    // the JS rather than after it has run; the JS then takes those very responses instead of
    // asking again.
    for (const file of preloaded) {
      const requests = asked.filter((r) => file.test(new URL(r.url).pathname));
      assert.deepEqual(
        requests.map((r) => r.by),
        ["parser"],
        `${file} is asked for once, by the page's head`,
      );
    }
    assert.ok(
      total <= BUDGET.budget_bytes[route],
      `${route} moved ${total} bytes, past its budget of ${BUDGET.budget_bytes[route]}: see what grew above`,
    );
  });
}
