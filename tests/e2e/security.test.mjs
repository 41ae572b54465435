// A page of another origin, in real Chromium, against a server-stub with its defaults: it gets
// no token and cannot create a job. The server's own app runs under its CSP without a violation.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { launch, startServer, TOKEN } from "./harness.mjs";

let server, evil, browser;

before(async () => {
  server = await startServer();
  evil = createServer((_, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!doctype html><title>Some other site</title><p>hello</p>");
  });
  await new Promise((r) => evil.listen(0, "127.0.0.1", r));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  evil?.close();
  await server?.stop();
});

async function serverJobs(project) {
  const response = await fetch(`${server.url}/api/projects/${project}/jobs`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(response.status, 200);
  return (await response.json()).jobs;
}

test("a page on another origin gets no token and cannot create a job", async () => {
  const page = await browser.newPage();
  // Another origin on the same machine: a different port (the browser's notion of origin).
  await page.goto(`http://localhost:${evil.address().port}/`);
  const seen = [];
  page.on("response", (r) => {
    if (r.url().startsWith(server.url)) seen.push({ url: r.url(), status: r.status() });
  });
  const outcome = await page.evaluate(async (base) => {
    const result = {};
    try {
      const r = await fetch(`${base}/config.json`);
      result.config = await r.text();
    } catch (e) {
      result.config = `blocked: ${e.message}`;
    }
    try {
      const r = await fetch(`${base}/config.json`, { credentials: "include" });
      result.withCredentials = await r.text();
    } catch (e) {
      result.withCredentials = `blocked: ${e.message}`;
    }
    // A "simple" request needs no preflight: it reaches the server, without a token.
    await fetch(`${base}/api/projects/victim/jobs`, {
      method: "POST",
      mode: "no-cors",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ prompt: "spend their money" }),
    }).catch(() => {});
    try {
      const r = await fetch(`${base}/api/projects/victim/jobs`, {
        method: "POST",
        headers: { authorization: "Bearer guessed", "content-type": "application/json" },
        body: JSON.stringify({ prompt: "spend their money" }),
      });
      result.create = r.status;
    } catch (e) {
      result.create = `blocked: ${e.message}`;
    }
    return result;
  }, server.url);
  assert.match(outcome.config, /^blocked/, "the foreign page cannot read config.json");
  assert.match(outcome.withCredentials, /^blocked/);
  assert.match(String(outcome.create), /^blocked/, "no CORS for a foreign origin");
  assert.ok(!JSON.stringify(outcome).includes(TOKEN));
  const config = seen.find((r) => r.url.endsWith("/config.json"));
  if (config) assert.equal(config.status, 403, "the server itself refused the token");
  assert.deepEqual(await serverJobs("victim"), [], "no job was created");
});

test("the server's own app runs under its Content-Security-Policy without a violation", async () => {
  const page = await browser.newPage();
  const violations = [];
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  const response = await page.goto(`${server.url}/`);
  const headers = response.headers();
  assert.match(headers["content-security-policy"], /frame-ancestors 'none'/);
  assert.equal(headers["x-content-type-options"], "nosniff");
  await page.getByLabel("Project ID").fill("Under CSP");
  await page.getByRole("button", { name: "Open Project" }).click();
  await page.getByText("Project: under-csp").waitFor();
  await page.getByText("No videos saved yet.", { exact: false }).waitFor();
  await page.getByLabel("Prompt").fill("a calm lake at dawn");
  await page.getByRole("button", { name: "Generate" }).click();
  await page.locator("li.job").first().waitFor();
  assert.equal(await page.getByRole("alert").count(), 0, "every call went through");
  assert.deepEqual(violations, []);
});
