// The status poll and media reads (ranges and whole files) against nginx on the same cores.
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import {
  TOKEN,
  RUNS,
  work,
  rows,
  median,
  row,
  api,
  until,
  startNginx,
  readmeMediaFront,
  wrk,
} from "./lib.mjs";

export async function apiAndRanges(server, data) {
  console.log("\nGET /api/jobs/sora/{id}, 256 connections; Range reads of a 50 MB mp4");
  const job = await api(server.url, "/projects/bench/jobs", {
    prompt: "bench",
    seconds: 1,
    size: "320x180",
  });
  const id = job.sora_job_id;
  await until(
    async () => (await api(server.url, `/jobs/sora/${encodeURIComponent(id)}`)).status === "done",
  );
  const body = JSON.stringify(await api(server.url, `/jobs/sora/${encodeURIComponent(id)}`));
  const root = join(work, "static");
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "job.json"), body);
  const big = join(data, "media/projects/bench/big.mp4");
  mkdirSync(join(data, "media/projects/bench"), { recursive: true });
  const fd = openSync(big, "w");
  const chunk = Buffer.alloc(1 << 20, 7);
  for (let i = 0; i < 50; i++) writeSync(fd, chunk);
  closeSync(fd);
  execFileSync("cp", [big, join(root, "big.mp4")]);
  const nginx = startNginx((port) => `server { listen 127.0.0.1:${port}; root ${root}; }`);
  const front = startNginx(readmeMediaFront(data, server.url));
  try {
    await until(async () => (await fetch(`${nginx.url}/job.json`).catch(() => null))?.ok, 10_000);
    await until(
      async () => (await fetch(`${front.url}/media/projects/bench/big.mp4`).catch(() => null))?.ok,
      10_000,
    );
    await compareWithNginx(server, nginx, id);
    await throughReadmeFront(front, nginx);
  } finally {
    await Promise.all([nginx.stop(), front.stop()]);
  }
}

/** Range reads from the media address docs/configuration.md sets up, beside the plain nginx reference;
 * and a missing poster, which must fall through to server-stub. */
async function throughReadmeFront(front, nginx) {
  const range = "Range: bytes=1048576-2097151";
  const runs = [];
  const references = [];
  for (let i = 0; i < Math.min(RUNS, 3); i++) {
    runs.push(wrk(`${front.url}/media/projects/bench/big.mp4`, [range], 32));
    references.push(wrk(`${nginx.url}/big.mp4`, [range], 32));
  }
  const poster = await fetch(`${front.url}/media/projects/bench/none.jpg`);
  // server-stub's answer (nginx sets no nosniff header), not nginx's own 404 or a 502.
  if (poster.status !== 404 || poster.headers.get("x-content-type-options") !== "nosniff") {
    throw new Error(`a missing poster was not passed to server-stub (${poster.status})`);
  }
  rangeRow("Range reads through the documented nginx media address (MB/s)", runs, references);
}

/** A Range row: the median throughput of `runs` beside that of nginx's `references`. */
function rangeRow(figure, runs, references) {
  const mbps = median(runs.map((r) => r.mbps));
  const nmbps = median(references.map((r) => r.mbps));
  row(figure, mbps.toFixed(0), `nginx ${nmbps.toFixed(0)}`, ">= 0.9x nginx", mbps >= 0.9 * nmbps);
  rows.at(-1).ratio = Number((mbps / nmbps).toFixed(3));
}

async function compareWithNginx(server, nginx, id) {
  const apiRuns = [];
  const nginxRuns = [];
  const rangeRuns = [];
  const nginxRangeRuns = [];
  const wholeRuns = [];
  const nginxWholeRuns = [];
  const range = "Range: bytes=1048576-2097151";
  for (let i = 0; i < Math.min(RUNS, 3); i++) {
    apiRuns.push(
      wrk(`${server.url}/api/jobs/sora/${encodeURIComponent(id)}`, [
        `Authorization: Bearer ${TOKEN}`,
      ]),
    );
    nginxRuns.push(wrk(`${nginx.url}/job.json`));
    rangeRuns.push(wrk(`${server.url}/media/projects/bench/big.mp4`, [range], 32));
    nginxRangeRuns.push(wrk(`${nginx.url}/big.mp4`, [range], 32));
    wholeRuns.push(wrk(`${server.url}/media/projects/bench/big.mp4`, [], 32));
    nginxWholeRuns.push(wrk(`${nginx.url}/big.mp4`, [], 32));
  }
  const rps = median(apiRuns.map((r) => r.rps));
  const nrps = median(nginxRuns.map((r) => r.rps));
  const p99 = median(apiRuns.map((r) => r.p99ms));
  const np99 = median(nginxRuns.map((r) => r.p99ms));
  row(
    "GET job: requests/s",
    rps.toFixed(0),
    `nginx static JSON ${nrps.toFixed(0)}`,
    ">= 0.8x nginx",
    rps >= 0.8 * nrps,
  );
  rows.at(-1).ratio = Number((rps / nrps).toFixed(3));
  row(
    "GET job: p99 latency (ms)",
    p99.toFixed(2),
    `nginx ${np99.toFixed(2)}`,
    "no worse than nginx",
    p99 <= np99,
  );
  rangeRow("Range reads of a 50 MB mp4 (MB/s)", rangeRuns, nginxRangeRuns);
  rangeRow("Whole-file GETs of a 50 MB mp4 (MB/s)", wholeRuns, nginxWholeRuns);
}
