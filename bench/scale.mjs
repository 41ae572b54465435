// Scale: 1,000 open event streams (the memory each takes, and how long a change takes to reach
// all of them) and 1,000 queued jobs (the memory each takes).
import { request } from "node:http";
import { join } from "node:path";
import { TOKEN, work, row, startServer, api, until, rssKb } from "./lib.mjs";

const STREAMS = 1000;
const QUEUED = 1000;

/** Opens the project's event stream; resolves once its answer has begun, with the stream. */
function openStream(url, project, onData) {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/projects/${project}/events`,
      { headers: { authorization: `Bearer ${TOKEN}`, accept: "text/event-stream" } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`stream answered ${res.statusCode}`));
        res.setEncoding("utf8");
        res.on("data", onData);
        resolve(req);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

export async function scale() {
  console.log(`\nscale: ${STREAMS} open event streams, ${QUEUED} queued jobs`);
  // Limits high enough to queue every job; one worker, so that the queue stays long.
  const server = await startServer(join(work, "scale"), [
    ...["--max-active-jobs", "100000", "--max-active-per-project", "100000"],
    ...["--workers", "1"],
  ]);
  try {
    await streams(server);
    await queued(server);
  } finally {
    await server.stop();
  }
}

async function streams(server) {
  // One stream first, so that what any stream needs once (buffers, the project's channel) is
  // counted before the baseline.
  const first = await openStream(server.url, "scale", () => {});
  const before = rssKb(server.pid, "VmRSS");
  const seen = new Set();
  let created = "";
  const open = [first];
  for (let i = 0; i < STREAMS; i++) {
    let text = "";
    open.push(
      await openStream(server.url, "scale", (chunk) => {
        text += chunk;
        if (created && text.includes(created)) seen.add(i);
      }),
    );
  }
  const after = rssKb(server.pid, "VmRSS");
  const perStream = (after - before) / STREAMS;
  row(
    `memory per open event stream, ${STREAMS} open (KB)`,
    perStream.toFixed(1),
    `${((after - before) / 1024).toFixed(1)} MB for all of them`,
    "report",
    true,
  );
  const start = performance.now();
  const job = await api(server.url, "/projects/scale/jobs", {
    prompt: "scale",
    seconds: 1,
    size: "320x180",
  });
  created = job.sora_job_id;
  await until(async () => seen.size === STREAMS, 60_000);
  const ms = performance.now() - start;
  row(
    `a new job reaches all ${STREAMS} streams (ms)`,
    ms.toFixed(0),
    "from the create request",
    "report",
    true,
  );
  for (const req of open) req.destroy();
}

async function queued(server) {
  // A first render takes the engine's working set (kept by the allocator afterwards); then a
  // long render holds the one worker, so that the jobs created meanwhile stay queued and the
  // row counts what a queued job costs.
  const done = async (job, status) => {
    const path = `/jobs/sora/${encodeURIComponent(job.sora_job_id)}`;
    return (await api(server.url, path)).status === status;
  };
  const make = (project, prompt, seconds, size) =>
    api(server.url, `/projects/${project}/jobs`, { prompt, seconds, size });
  const warm = await make("warm", "warm", 1, "320x180");
  await until(() => done(warm, "done"));
  const long = await make("long", "a long render that holds the worker", 20, "1920x1080");
  await until(() => done(long, "running"));
  const before = rssKb(server.pid, "VmRSS");
  for (let i = 0; i < QUEUED; i++) {
    const job = await make(`queue-${i % 50}`, `queued job ${i}`, 1, "320x180");
    if (!job.sora_job_id) throw new Error(`job ${i} not made: ${JSON.stringify(job)}`);
  }
  const after = rssKb(server.pid, "VmRSS");
  if (!(await done(long, "running"))) throw new Error("the long render ended before the queue");
  row(
    `RSS growth per queued job, ${QUEUED} queued (KB)`,
    ((after - before) / QUEUED).toFixed(1),
    `${((after - before) / 1024).toFixed(1)} MB in all, the worker busy meanwhile`,
    "report",
    true,
  );
}
