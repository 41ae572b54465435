// Measures the ZIP download: 1 GiB of videos (20 of 50 MiB) streamed as one archive, with the
// server's memory growth over the download (its resident set, sampled every 50 ms) and the
// rate. Target: under 32 MiB of growth. Run with `node bench/zip.mjs` after `npm run build`.
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { startServer, TOKEN } from "../tests/e2e/harness.mjs";

const VIDEOS = 20;
const SIZE = 50 * 1024 * 1024;
const TARGET_MB = 32;

const rssMb = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(status.match(/VmRSS:\s+(\d+) kB/)[1]) / 1024;
};

const server = await startServer();
try {
  const folder = join(server.data, "media/projects/zip-bench");
  mkdirSync(folder, { recursive: true });
  const names = [];
  for (let i = 0; i < VIDEOS; i++) {
    const name = `local-1:task_bench${String(i).padStart(2, "0")}.mp4`;
    const fd = openSync(join(folder, name), "w");
    writeSync(fd, Buffer.from(`video ${i}`));
    ftruncateSync(fd, SIZE);
    closeSync(fd);
    names.push(name);
  }
  const before = rssMb(server.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(server.pid))), 50);
  const start = process.hrtime.bigint();
  const response = await fetch(
    `${server.url}/api/projects/zip-bench/assets.zip?names=${names.map(encodeURIComponent).join(",")}`,
    { headers: { authorization: `Bearer ${TOKEN}` } },
  );
  let received = 0;
  for await (const chunk of response.body) received += chunk.length;
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  clearInterval(sampler);
  peak = Math.max(peak, rssMb(server.pid));
  const growth = peak - before;
  const announced = Number(response.headers.get("content-length"));
  console.log(
    `ZIP of ${VIDEOS} x ${SIZE / 2 ** 20} MiB: ${(received / 2 ** 30).toFixed(2)} GiB in ${elapsed.toFixed(2)} s (${(received / 2 ** 20 / elapsed).toFixed(0)} MiB/s)`,
  );
  console.log(
    `  length ${received === announced ? "matches" : "DIFFERS from"} Content-Length (${announced})`,
  );
  console.log(
    `  ${growth < TARGET_MB ? "met " : "MISS"}  server memory growth: ${growth.toFixed(1)} MiB (resident ${before.toFixed(1)} -> ${peak.toFixed(1)} MiB; target < ${TARGET_MB} MiB)`,
  );
} finally {
  await server.stop();
}
