// Saving, copying and listing many videos, local and S3 (moto), with the memory it takes.
import { spawn } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  openSync,
  rmSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import {
  FAKES,
  RUNS,
  work,
  median,
  row,
  startServer,
  api,
  until,
  rssKb,
  startMoto,
} from "./lib.mjs";

export async function bigSave() {
  console.log("\nsave of a 500 MB video: server-stub RSS growth");
  const data = join(work, "save-data");
  const id = "local-1:task_01bench0000000000000000save";
  mkdirSync(join(data, "jobs"), { recursive: true });
  mkdirSync(join(data, "media/previews"), { recursive: true });
  const fd = openSync(join(data, `media/previews/${id}.mp4`), "w");
  const chunk = Buffer.alloc(1 << 20, 3);
  for (let i = 0; i < 500; i++) writeSync(fd, chunk);
  closeSync(fd);
  writeFileSync(
    join(data, `jobs/${id}.json`),
    JSON.stringify({
      sora_job_id: id,
      project_id: "bench",
      prompt: "big",
      model: "local-1",
      provider: "local",
      spec: { width: 1280, height: 720, fps: 24, seconds: 10 },
      status: "done",
      progress: 100,
      preview_key: `previews/${id}.mp4`,
      error: null,
      attempts: 1,
      created_at: "2026-11-21T00:00:00Z",
      updated_at: "2026-11-21T00:00:00Z",
    }),
  );
  const server = await startServer(data);
  await api(server.url, "/projects/bench/assets");
  const before = rssKb(server.pid, "VmRSS");
  const started = process.hrtime.bigint();
  const saved = await api(server.url, `/jobs/sora/${encodeURIComponent(id)}/save`, {
    project_id: "bench",
    prompt: "big",
  });
  const took = Number(process.hrtime.bigint() - started) / 1e9;
  const peak = rssKb(server.pid, "VmHWM");
  await server.stop();
  if (!saved.r2_key) throw new Error(`save failed: ${JSON.stringify(saved)}`);
  const growthMb = (peak - before) / 1024;
  row(
    "save of 500 MB: peak RSS growth (MB)",
    growthMb.toFixed(1),
    `streaming copy, ${took.toFixed(2)} s`,
    "< 16 MB",
    growthMb < 16,
  );
  rmSync(data, { recursive: true, force: true });
}

export async function bigCopy(storage) {
  console.log(`\ncopy of a finished 500 MB provider video into ${storage}: RSS growth`);
  const moto = storage === "s3" ? await startMoto() : null;
  const fakes = spawn(FAKES, ["--content-bytes", String(500 << 20), "--job-ms", "200"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const fakeUrl = await new Promise((ok) => {
    let out = "";
    fakes.stdout.on("data", (c) => {
      out += c;
      const m = out.match(/listening on (http:\/\/[^\s]+)/);
      if (m) ok(m[1]);
    });
  });
  const data = join(work, "copy-data");
  const server = await startServer(data, [
    ...["--openai-api-key", "fake-key", "--openai-base-url", `${fakeUrl}/openai/v1`],
    ...["--provider-poll-ms", "50"],
    ...(moto ? ["--storage", "s3", "--s3-bucket", "bench-bucket", "--s3-endpoint", moto.url] : []),
    ...(moto
      ? ["--s3-access-key-id", "k", "--s3-secret-access-key", "s", "--s3-public-url", moto.url]
      : []),
  ]);
  await api(server.url, "/projects/bench/assets");
  const before = rssKb(server.pid, "VmRSS");
  const started = process.hrtime.bigint();
  const job = await api(server.url, "/projects/bench/jobs", { prompt: "big", model: "sora-2" });
  const id = encodeURIComponent(job.sora_job_id);
  let last;
  await until(async () => {
    last = await api(server.url, `/jobs/sora/${id}`);
    return last.status === "done" || last.status === "error";
  });
  const took = Number(process.hrtime.bigint() - started) / 1e9;
  const peak = rssKb(server.pid, "VmHWM");
  await server.stop();
  fakes.kill("SIGTERM");
  moto?.stop();
  if (last.status !== "done") throw new Error(`copy failed: ${JSON.stringify(last)}`);
  const growthMb = (peak - before) / 1024;
  row(
    `provider copy of 500 MB into ${storage}: peak RSS growth (MB)`,
    growthMb.toFixed(1),
    `streamed from the OpenAI-compatible fake, ${took.toFixed(2)} s`,
    "< 16 MB",
    growthMb < 16,
  );
  rmSync(data, { recursive: true, force: true });
}

const MANY = 10_000;
const manyName = (i) => `local-1:task_${String(i).padStart(26, "0")}.mp4`;

/** Times RUNS listings of the 10,000-video project: the first (cold) and the median of all. */
async function timeListings(server) {
  const times = [];
  let count = 0;
  for (let i = 0; i < RUNS + 1; i++) {
    const start = process.hrtime.bigint();
    count = (await api(server.url, "/projects/many/assets")).videos.length;
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  if (count !== MANY) throw new Error(`listed ${count}`);
  return { cold: times[0], warm: median(times.slice(1)) };
}

export async function bigList() {
  console.log("\nasset list of 10,000 videos (local folder)");
  const data = join(work, "list-data");
  const folder = join(data, "media/projects/many");
  mkdirSync(folder, { recursive: true });
  for (let i = 0; i < MANY; i++) writeFileSync(join(folder, manyName(i)), "x");
  // A library that was there before the server started, as a user's is: the folder last
  // changed a minute ago (the server keeps a listing once the folder has been still for 2 s).
  const before = new Date(Date.now() - 60_000);
  utimesSync(folder, before, before);
  const server = await startServer(data);
  const local = await timeListings(server);
  await server.stop();
  row(
    "asset list of 10,000 videos (ms)",
    local.warm.toFixed(1),
    `first listing after a start ${local.cold.toFixed(0)} ms`,
    "< 100 ms",
    local.warm < 100,
  );
  rmSync(data, { recursive: true, force: true });

  console.log("\nasset list of 10,000 videos (S3: moto, on this machine)");
  const moto = await startMoto();
  let next = 0;
  const put = async () => {
    while (next < MANY) {
      const key = `projects/many/${manyName(next++)}`;
      const res = await fetch(`${moto.url}/bench-bucket/${encodeURIComponent(key)}`, {
        method: "PUT",
        body: "x",
      });
      if (!res.ok) throw new Error(`moto PUT ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, put));
  const s3 = await startServer(join(work, "list-s3-data"), [
    ...["--storage", "s3", "--s3-bucket", "bench-bucket", "--s3-endpoint", moto.url],
    ...["--s3-access-key-id", "k", "--s3-secret-access-key", "s", "--s3-public-url", moto.url],
  ]);
  const bucket = await timeListings(s3);
  await s3.stop();
  moto.stop();
  row(
    "asset list of 10,000 videos, S3 (ms)",
    bucket.warm.toFixed(1),
    `first listing after a start ${bucket.cold.toFixed(0)} ms (10 LIST pages from moto)`,
    "< 100 ms",
    bucket.warm < 100,
  );
  rmSync(join(work, "list-s3-data"), { recursive: true, force: true });
}
