// The spend ledger at scale: a create's admission (which reads this month's committed spend and
// the provider's seconds today) and a /metrics scrape, with 10 removed jobs in the ledger and
// with 100,000. Admission and scrapes read running sums, so both should cost the same.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TOKEN, RUNS, auth, median, work, row, startServer } from "./lib.mjs";

const SIZES = [10, 100_000];
const CALLS = 50;

/** A data folder whose ledger holds `count` removed jobs of this month. */
function ledgerOf(count) {
  const data = join(work, `ledger-${count}`);
  mkdirSync(join(data, "jobs"), { recursive: true });
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const lines = [];
  for (let i = 0; i < count; i++) {
    lines.push(
      JSON.stringify({
        project_id: `p${i % 100}`,
        provider: "local",
        counts_seconds: true,
        created_at: now,
        job_id: `local-1:task_removed${i}`,
        model: "local-1",
        seconds: 1,
        size: "320x180",
        estimate_usd: 0,
        actual_usd: 0,
        source: "price table",
      }),
    );
  }
  writeFileSync(join(data, "jobs", "spend-ledger.jsonl"), lines.join("\n") + "\n");
  return data;
}

/** Milliseconds per call of `call`, the median of RUNS runs of CALLS calls. */
async function perCall(call) {
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    const start = performance.now();
    for (let i = 0; i < CALLS; i++) await call(i);
    runs.push((performance.now() - start) / CALLS);
  }
  return median(runs);
}

export async function ledger() {
  console.log(`\nledger: admission and a scrape with ${SIZES.join(" and ")} removed jobs`);
  const figures = {};
  for (const count of SIZES) {
    const server = await startServer(ledgerOf(count), [
      ...["--max-active-jobs", "100000", "--max-active-per-project", "100000"],
      ...["--monthly-budget-usd", "1000000"],
    ]);
    try {
      const create = await perCall(async (i) => {
        const res = await fetch(`${server.url}/api/projects/bench-ledger/jobs`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ prompt: `ledger ${i}`, seconds: 1, size: "320x180" }),
        });
        if (res.status !== 201) throw new Error(`create answered ${res.status}`);
        await res.arrayBuffer();
      });
      const scrape = await perCall(async () => {
        const res = await fetch(`${server.url}/metrics`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
        await res.arrayBuffer();
      });
      figures[count] = { create, scrape };
    } finally {
      await server.stop();
    }
  }
  const [few, many] = SIZES.map((n) => figures[n]);
  for (const what of ["create", "scrape"]) {
    const ratio = many[what] / few[what];
    row(
      `${what === "create" ? "a create's admission" : "a /metrics scrape"} with ${SIZES[1].toLocaleString("en")} removed jobs (ms)`,
      many[what].toFixed(2),
      `${few[what].toFixed(2)} ms with ${SIZES[0]} (${ratio.toFixed(2)}x)`,
      "within 1.5x of 10",
      ratio <= 1.5,
    );
  }
}
