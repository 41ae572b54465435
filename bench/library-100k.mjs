// A library of 100,000 videos: the list over the API (local folder and S3) and, in Chromium,
// the first card, the whole library loaded and a search that finds one video among them.
import { copyFileSync, linkSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { chromium } from "playwright-core";
import { RENDER, RUNS, work, median, row, startServer, api, startMoto } from "./lib.mjs";

const COUNT = 100_000;
const LINKS = 50_000;
const PROJECT = "huge";
const name = (i) => `local-1:task_${String(i).padStart(26, "0")}`;

/** Times RUNS listings after a first (cold) one: the whole list and the app's first page. */
async function timeListings(server) {
  const timed = async (path) => {
    const start = performance.now();
    const answer = await api(server.url, path);
    return { ms: performance.now() - start, answer };
  };
  const cold = await timed(`/projects/${PROJECT}/assets`);
  if (cold.answer.videos.length !== COUNT) throw new Error(`listed ${cold.answer.videos.length}`);
  const whole = [];
  const page = [];
  for (let i = 0; i < RUNS; i++) {
    whole.push((await timed(`/projects/${PROJECT}/assets`)).ms);
    page.push((await timed(`/projects/${PROJECT}/assets?limit=100`)).ms);
  }
  return { cold: cold.ms, whole: median(whole), page: median(page) };
}

function listingRows(where, figures, cold) {
  row(
    `list of ${COUNT.toLocaleString("en")} videos, ${where}: all of them (ms)`,
    figures.whole.toFixed(0),
    `first listing after a start ${figures.cold.toFixed(0)} ms${cold}`,
    "report",
    true,
  );
  row(
    `list of ${COUNT.toLocaleString("en")} videos, ${where}: the app's first page of 100 (ms)`,
    figures.page.toFixed(1),
    "the page the library shows first",
    "report",
    true,
  );
}

/** One open of the library in a fresh context: first card, everything loaded, one search. */
async function openAndSearch(browser, server) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/${PROJECT}`);
  await page.locator(".asset").first().waitFor();
  const firstCard = await page.evaluate(() => performance.now());
  await page.waitForFunction((count) => window.studio.view("cards").matching === count, COUNT, {
    timeout: 120_000,
    polling: 50,
  });
  const loaded = await page.evaluate(() => performance.now());
  const search = page.getByRole("searchbox", { name: "Search videos" });
  const start = await page.evaluate(() => performance.now());
  await search.fill(`video number ${COUNT - 1}`);
  await page.waitForFunction(() => document.querySelectorAll(".asset").length === 1, null, {
    polling: "raf",
  });
  const found = (await page.evaluate(() => performance.now())) - start;
  const clearStart = await page.evaluate(() => performance.now());
  await search.fill("");
  await page.waitForFunction(() => document.querySelectorAll(".asset").length > 1, null, {
    polling: "raf",
  });
  const cleared = (await page.evaluate(() => performance.now())) - clearStart;
  const heap = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? 0);
  await context.close();
  return { firstCard, loaded, found, cleared, heap };
}

export async function library100k() {
  console.log(`\nthe library: ${COUNT.toLocaleString("en")} videos (local folder, then S3)`);
  const data = join(work, "huge-data");
  const folder = join(data, "media/projects", PROJECT);
  mkdirSync(folder, { recursive: true });
  const video = join(work, "huge.mp4");
  execFileSync(RENDER, ["a lighthouse over a stormy sea", video, "2", "320x180"]);
  // Hard links: 100,000 videos without their disk space, a copy per 50,000 (ext4 allows a file
  // 65,000 links), all of one modification time, so that the list is in name order.
  const copies = Array.from({ length: Math.ceil(COUNT / LINKS) }, (_, c) => `${video}.${c}`);
  for (const copy of copies) copyFileSync(video, copy);
  for (let i = 0; i < COUNT; i++) {
    linkSync(copies[Math.floor(i / LINKS)], join(folder, `${name(i)}.mp4`));
    writeFileSync(join(folder, `${name(i)}.json`), JSON.stringify({ prompt: `video number ${i}` }));
  }
  const now = new Date();
  for (const copy of copies) utimesSync(copy, now, now);
  // A library that was there before the server started, as a user's is: the folder last
  // changed a minute ago (the server keeps a listing once the folder has been still for 2 s).
  const before = new Date(Date.now() - 60_000);
  utimesSync(folder, before, before);
  const server = await startServer(data);
  try {
    listingRows("local folder", await timeListings(server), "");
    const browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--enable-precise-memory-info"],
    });
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await openAndSearch(browser, server));
    await browser.close();
    const figure = (key) => median(runs.map((r) => r[key]));
    console.log(`  browser: ${JSON.stringify(runs)}`);
    row(
      `library of ${COUNT.toLocaleString("en")}: first card visible (ms)`,
      figure("firstCard").toFixed(0),
      "from navigation",
      "report",
      true,
    );
    row(
      `library of ${COUNT.toLocaleString("en")}: every video loaded (ms)`,
      figure("loaded").toFixed(0),
      `page heap then ${(figure("heap") / 1e6).toFixed(0)} MB`,
      "report",
      true,
    );
    row(
      `library of ${COUNT.toLocaleString("en")}: a search down to one video (ms)`,
      figure("found").toFixed(0),
      `clearing it again ${figure("cleared").toFixed(0)} ms`,
      "report",
      true,
    );
  } finally {
    await server.stop();
    rmSync(data, { recursive: true, force: true });
  }

  const moto = await startMoto();
  const s3Data = join(work, "huge-s3-data");
  try {
    let next = 0;
    const put = async () => {
      while (next < COUNT) {
        const key = `projects/${PROJECT}/${name(next++)}.mp4`;
        const res = await fetch(`${moto.url}/bench-bucket/${encodeURIComponent(key)}`, {
          method: "PUT",
          body: "x",
        });
        if (!res.ok) throw new Error(`moto PUT ${res.status}`);
      }
    };
    const putStart = performance.now();
    await Promise.all(Array.from({ length: 16 }, put));
    console.log(
      `  ${COUNT} objects put to moto in ${((performance.now() - putStart) / 1000).toFixed(0)} s`,
    );
    const s3 = await startServer(s3Data, [
      ...["--storage", "s3", "--s3-bucket", "bench-bucket", "--s3-endpoint", moto.url],
      ...["--s3-access-key-id", "k", "--s3-secret-access-key", "s", "--s3-public-url", moto.url],
    ]);
    try {
      listingRows(
        "S3 (moto, on this machine)",
        await timeListings(s3),
        " (100 LIST pages from moto)",
      );
    } finally {
      await s3.stop();
    }
  } finally {
    moto.stop();
    rmSync(s3Data, { recursive: true, force: true });
  }
}
