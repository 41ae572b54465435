// Starts server-stub and Chromium for the end-to-end tests, and saves screenshots.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join, resolve } from "node:path";
import { after, before } from "node:test";
import { chromium } from "playwright-core";

export const ROOT = resolve(import.meta.dirname, "../..");
const SERVER = join(ROOT, "target/release/server-stub");
const FAKES = join(ROOT, "target/release/provider-fakes");
const DIST = join(ROOT, "app/dist");
const ARTIFACTS = join(ROOT, "tests/artifacts");
export const TOKEN = "e2e-token";
const JSON_HEADERS = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

/** Starts server-stub on a free port; `data` keeps its folder across restarts. */
export async function startServer({
  data = mkdtempSync(join(tmpdir(), "studio-e2e-")),
  token = TOKEN,
  port = 0,
  args = [],
} = {}) {
  const child = spawn(
    SERVER,
    ["--port", String(port), "--data", data, "--api-token", token, "--app-dir", DIST, ...args],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, RUST_LOG: "warn" } },
  );
  let log = "";
  child.stderr.on("data", (chunk) => (log += chunk));
  const url = await new Promise((resolvePromise, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = out.match(/running at (http:\/\/[^\s]+)\//);
      if (match) resolvePromise(match[1]);
    });
    child.on("exit", (code) => reject(new Error(`server-stub exited with ${code}: ${log}`)));
  });
  const exited = new Promise((r) => child.on("exit", r));
  return {
    url,
    port: Number(new URL(url).port),
    data,
    pid: child.pid,
    /** Graceful stop (SIGTERM) and wait for the exit. */
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
    /** A crash: SIGKILL. */
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** Starts the hosted-provider fakes (tests/fakes) on a free port. */
export async function startFakes(args = []) {
  const child = spawn(FAKES, ["--port", "0", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolvePromise, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = out.match(/listening on (http:\/\/[^\s]+)/);
      if (match) resolvePromise(match[1]);
    });
    child.on("exit", (code) => reject(new Error(`provider-fakes exited with ${code}`)));
  });
  const exited = new Promise((r) => child.on("exit", r));
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Serves app/dist as a plain static site (with an SPA fallback) and the given config.json
 * (read at each request, so it may be filled in after the site starts). */
export async function startStaticSite(config) {
  const types = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".css": "text/css",
    ".wasm": "application/wasm",
  };
  const server = createServer(async (req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    if (path === "/config.json") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(config));
    }
    const file = join(DIST, path);
    try {
      const body = await readFile(
        file.startsWith(DIST) && extname(file) ? file : join(DIST, "index.html"),
      );
      res.writeHead(200, { "content-type": types[extname(file)] ?? "text/html" });
      res.end(body);
    } catch {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(await readFile(join(DIST, "index.html")));
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

/** A review link of the saved `videos` (file names without .mp4) of `project`, for an hour:
 * `{id, url, expires_at}`. */
export async function shareLink(server, project, videos) {
  const made = await fetch(`${server.url}/api/projects/${project}/shares`, {
    method: "POST",
    headers: JSON_HEADERS,
    body: JSON.stringify({ videos: videos.map((v) => `${v}.mp4`), expires_in_hours: 1 }),
  });
  if (made.status !== 201) throw new Error(`share: ${made.status} ${await made.text()}`);
  return made.json();
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--autoplay-policy=no-user-gesture-required",
    ],
  });
}

export async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Waits for `check()` to be truthy, calling `between()` after each miss; bounded in time. */
export async function waitUntil(check, { timeout = 60_000, interval = 250, between } = {}) {
  const end = Date.now() + timeout;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`condition not met within ${timeout} ms`);
    if (between) await between();
    await new Promise((r) => setTimeout(r, interval));
  }
}

/** Clicks Check Status until the job row shows DONE (the 20 s poll would get there too). */
export async function waitForDone(page) {
  const row = page.locator("li.job").first();
  await waitUntil(async () => (await row.locator(".badge").textContent()) === "DONE", {
    between: async () => {
      const check = row.getByRole("button", { name: "Check Status" });
      if (await check.isEnabled().catch(() => false)) await check.click().catch(() => {});
    },
  });
  return row;
}

/** Starts a server-stub and a Chromium page before a file's tests and stops both after. */
export function serverAndPage(viewport = { width: 1280, height: 800 }) {
  const t = {};
  before(async () => {
    t.server = await startServer();
    t.browser = await launch();
    t.context = await t.browser.newContext({ viewport });
    t.page = await t.context.newPage();
  });
  after(async () => {
    await t.browser?.close();
    await t.server?.stop();
  });
  return t;
}

/** In an open Compare dialog: seeks to 0.5 s, plays 3 s and asserts every player is within
 * one frame (1/24 s) of the first; answers a function reading the players' times. */
export async function playInSync(dialog) {
  const videos = dialog.locator("video");
  await waitUntil(() => videos.evaluateAll((all) => all.every((v) => v.readyState >= 2)));
  const times = () => videos.evaluateAll((all) => all.map((v) => v.currentTime));
  await dialog.getByRole("slider", { name: "Seek" }).fill("0.5");
  await dialog.getByRole("button", { name: "Play" }).click();
  await waitUntil(async () => (await times())[0] >= 3.5, { interval: 50 });
  const [lead, ...followers] = await times();
  for (const follower of followers) {
    if (Math.abs(lead - follower) > 1 / 24) throw new Error(`drift ${lead} vs ${follower}`);
  }
  return times;
}

/** axe-core, run in the page by the DevTools protocol (as @axe-core/playwright runs it; the
 * page's CSP forbids injected script tags). */
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe-core's WCAG 2.1 A and AA audit of what the page shows now: its serious and critical
 * violations, each with the first few elements it was found on. */
export async function audit(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const tags = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
    const { violations } = await window.axe.run(document, {
      runOnly: { type: "tag", values: tags },
    });
    return violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        nodes: v.nodes.slice(0, 4).map((n) => `${n.target.join(" ")}: ${n.failureSummary}`),
      }));
  });
}

/** Runs the item `name` (the start of its text) of the More menu in `scope` (a library card
 * or a job row), by keyboard as the menu pattern has it: ArrowDown on the button opens the
 * menu on its first item, ArrowDown moves, Enter runs. */
export async function fromMenu(scope, name) {
  const more = scope.getByRole("button", { name: /^More for / });
  await more.focus();
  await more.press("ArrowDown");
  const page = scope.page();
  await scope.getByRole("menu").waitFor();
  const at = () => page.evaluate(() => document.activeElement.textContent.trim());
  for (let moves = 0; !(await at()).startsWith(name); moves++) {
    if (moves > 20) throw new Error(`no menu item ${name}`);
    await page.keyboard.press("ArrowDown");
  }
  await page.keyboard.press("Enter");
}

/** Renders a video (1 s unless told) in `project` on `server` through the API, not saved;
 * answers its job id once it is done. */
export async function finishedJob(server, project, prompt, seconds = 1) {
  const created = await fetch(`${server.url}/api/projects/${project}/jobs`, {
    method: "POST",
    headers: JSON_HEADERS,
    body: JSON.stringify({ prompt, seconds, size: "640x360" }),
  });
  const { sora_job_id: id } = await created.json();
  const url = `${server.url}/api/jobs/sora/${encodeURIComponent(id)}`;
  const done = async () => (await (await fetch(url, { headers: JSON_HEADERS })).json()).status;
  await waitUntil(async () => (await done()) === "done");
  return id;
}

/** Renders a video as `finishedJob` does and saves it to the library; answers its job id. */
export async function savedVideo(server, project, prompt, seconds = 1) {
  const id = await finishedJob(server, project, prompt, seconds);
  const url = `${server.url}/api/jobs/sora/${encodeURIComponent(id)}`;
  const save = await fetch(`${url}/save`, {
    method: "POST",
    headers: JSON_HEADERS,
    body: JSON.stringify({ project_id: project, prompt }),
  });
  if (save.status !== 200) throw new Error(`save answered ${save.status}`);
  return id;
}
