// Jobs per minute through one server and through two replicas on PostgreSQL, and creates per
// second at once.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  TOKEN,
  RUNS,
  work,
  rows,
  median,
  row,
  startServer,
  api,
  until,
  wrk,
  startPostgres,
} from "./lib.mjs";

/** Status polls with the database beside file mode, and a queue drained by one and two replicas. */
export async function replicas() {
  console.log("\nseveral servers on one PostgreSQL database");
  const pg = await startPostgres();
  const shared = ["--database-url", pg.url, "--shared-media"];
  // Both servers run side by side and are measured in turns, first one then the other, so
  // that neither gets the machine's quieter moments.
  const targets = {};
  for (const [mode, extra] of [
    ["files", []],
    ["database", shared],
  ]) {
    const server = await startServer(join(work, `polls-${mode}`), extra);
    const job = await api(server.url, "/projects/polls/jobs", {
      prompt: "polls",
      seconds: 1,
      size: "320x180",
    });
    const path = `/jobs/sora/${encodeURIComponent(job.sora_job_id)}`;
    await until(async () => (await api(server.url, path)).status === "done");
    targets[mode] = { server, url: `${server.url}/api${path}`, runs: [] };
  }
  for (let i = 0; i < Math.max(RUNS, 4); i++) {
    const turns = Object.values(targets);
    for (const target of i % 2 ? turns.reverse() : turns)
      target.runs.push(wrk(target.url, [`Authorization: Bearer ${TOKEN}`]).rps);
  }
  const polls = {};
  for (const [mode, target] of Object.entries(targets)) {
    polls[mode] = median(target.runs);
    await target.server.stop();
  }
  row(
    "status polls with the database (requests/s)",
    polls.database.toFixed(0),
    `file mode ${polls.files.toFixed(0)}`,
    ">= 0.9x file mode",
    polls.database >= 0.9 * polls.files,
  );
  rows.at(-1).ratio = Number((polls.database / polls.files).toFixed(3));

  const JOBS = 20;
  const drained = {};
  for (const count of [1, 2]) {
    const media = join(work, `drain-${count}`);
    const servers = [];
    const limits = [`--max-active-per-project=${JOBS}`];
    for (let i = 0; i < count; i++) servers.push(await startServer(media, [...shared, ...limits]));
    const project = `drain${count}`;
    const started = process.hrtime.bigint();
    for (let i = 0; i < JOBS; i++) {
      const job = await api(servers[i % count].url, `/projects/${project}/jobs`, {
        prompt: `a field of wheat ${i}`,
        seconds: 8,
        size: "1280x720",
      });
      if (!job.sora_job_id) throw new Error(`create refused: ${JSON.stringify(job)}`);
    }
    await until(async () => {
      const { jobs } = await api(servers[0].url, `/projects/${project}/jobs`);
      return jobs.filter((j) => j.status === "done").length === JOBS;
    });
    const minutes = Number(process.hrtime.bigint() - started) / 6e10;
    drained[count] = JOBS / minutes;
    for (const server of servers) await server.stop();
  }
  row(
    "jobs drained per minute, one replica (8 s 1280x720 renders)",
    drained[1].toFixed(1),
    "-",
    "report",
    true,
  );
  row(
    "jobs drained per minute, two replicas",
    drained[2].toFixed(1),
    `one replica ${drained[1].toFixed(1)}`,
    "report (2 cores: each render already uses two threads)",
    true,
  );
  rows.at(-1).ratio = Number((drained[2] / drained[1]).toFixed(3));

  // Creates at once, the way a bulk API client sends them: with the database every create is
  // admitted under one lock all replicas share (the limits hold across them), so this is where
  // that lock would show. Last: the jobs it leaves queued would count against the drain's limits.
  const CREATES = 400;
  const AT_ONCE = 16;
  // Limits far above what is sent.
  const bulk = ["--max-active-per-project=10000", "--max-active-jobs=10000"];
  const created = {};
  // Each mode on an empty database of its own, as admission reads the jobs that are active.
  const empty = (name) => ["--database-url", pg.database(name), "--shared-media"];
  // With a monthly cap, each create also sums what the month commits; a price makes the cap
  // apply, and the cap is far above what is sent.
  const prices = join(work, "creates-prices.toml");
  writeFileSync(prices, '[models."local-1"]\nusd_per_second = 0.10\n');
  for (const [mode, count, extra] of [
    ["files", 1, []],
    ["database1", 1, empty("creates1")],
    ["database2", 2, empty("creates2")],
    ["capped1", 1, [...empty("capped1"), "--prices", prices]],
  ]) {
    const media = join(work, `creates-${mode}`);
    const servers = [];
    for (let i = 0; i < count; i++) servers.push(await startServer(media, [...extra, ...bulk]));
    if (mode === "capped1") {
      const cap = await fetch(`${servers[0].url}/api/projects/creates-${mode}/budget`, {
        method: "PUT",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ monthly_usd: 1000 }),
      });
      if (!cap.ok) throw new Error(`budget refused: ${cap.status}`);
    }
    let next = 0;
    const send = async () => {
      while (next < CREATES) {
        const i = next++;
        const job = await api(servers[i % count].url, `/projects/creates-${mode}/jobs`, {
          prompt: `a paper boat ${i}`,
          seconds: 1,
          size: "320x180",
        });
        if (!job.sora_job_id) throw new Error(`create refused: ${JSON.stringify(job)}`);
      }
    };
    const started = process.hrtime.bigint();
    await Promise.all(Array.from({ length: AT_ONCE }, send));
    created[mode] = CREATES / (Number(process.hrtime.bigint() - started) / 1e9);
    for (const server of servers) await server.stop();
  }
  row(
    `creates per second, ${AT_ONCE} at once, two replicas on PostgreSQL`,
    created.database2.toFixed(0),
    `one replica ${created.database1.toFixed(0)}; one server in file mode ${created.files.toFixed(0)}`,
    "report",
    true,
  );
  rows.at(-1).ratio = Number((created.database2 / created.files).toFixed(3));
  row(
    `creates per second, ${AT_ONCE} at once, one replica on PostgreSQL under a monthly cap`,
    created.capped1.toFixed(0),
    `the same without a cap ${created.database1.toFixed(0)}`,
    "report",
    true,
  );
  rows.at(-1).ratio = Number((created.capped1 / created.database1).toFixed(3));
  await pg.stop();
}
