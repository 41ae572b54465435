// Scale: 1,000 open event streams (the memory each takes, and how long a change takes to reach
// all of them) and 1,000 jobs created one after another (the server's memory growth per job,
// after a first render; its one worker renders them meanwhile).
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
  // A first render takes the engine's working set (about 80 MB here, kept by the allocator
  // afterwards): done before the baseline, so that the row counts what each further job adds.
  const warm = await api(server.url, "/projects/warm/jobs", {
    prompt: "warm",
    seconds: 1,
    size: "320x180",
  });
  const path = `/jobs/sora/${encodeURIComponent(warm.sora_job_id)}`;
  await until(async () => (await api(server.url, path)).status === "done");
  const before = rssKb(server.pid, "VmRSS");
  for (let i = 0; i < QUEUED; i++) {
    const job = await api(server.url, `/projects/queue-${i % 50}/jobs`, {
      prompt: `queued job ${i}`,
      seconds: 1,
      size: "320x180",
    });
    if (!job.sora_job_id) throw new Error(`job ${i} not made: ${JSON.stringify(job)}`);
  }
  const after = rssKb(server.pid, "VmRSS");
  row(
    `memory growth per job, ${QUEUED} created after a first render (KB)`,
    ((after - before) / QUEUED).toFixed(1),
    `${((after - before) / 1024).toFixed(1)} MB in all, renders running meanwhile`,
    "report",
    true,
  );
}
