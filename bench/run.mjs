// Measures Studio's figures beside reference points taken in the same run on the same machine,
// prints a table and writes bench/results.json. Each figure is the median of several runs.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { ROOT, RUNS, ONLY, wanted, work, rows, row, startServer } from "./lib.mjs";
import { engine } from "./engine.mjs";
import { exportCut } from "./export.mjs";
import { exportRoads } from "./export-roads.mjs";
import { exportMix } from "./export-mix.mjs";
import { apiAndRanges } from "./api.mjs";
import { firstLoad, firstScreen, idle } from "./page.mjs";
import { bigSave, bigCopy, bigList } from "./storage.mjs";
import { replicas } from "./replicas.mjs";
import { library } from "./library.mjs";
import { scale } from "./scale.mjs";
import { library100k } from "./library-100k.mjs";
import { ledger } from "./ledger.mjs";
import { credentials } from "./credentials.mjs";

const wasm = readFileSync(join(ROOT, "pkg/studio_core_bg.wasm"));
const wasmGz = gzipSync(wasm, { level: 9 }).length;
console.log(`core-wasm: ${wasm.length} bytes, ${wasmGz} gzip`);
row(
  "core-wasm size, gzip (KB)",
  (wasmGz / 1024).toFixed(1),
  `${(wasm.length / 1024).toFixed(1)} KB raw`,
  "<= 100 KB",
  wasmGz <= 100 * 1024,
);

const data = join(work, "data");
const server = await startServer(data);
try {
  if (wanted("engine")) await engine();
  if (wanted("export")) await exportCut(server, data);
  if (wanted("roads")) await exportRoads(server, data);
  if (wanted("mix")) await exportMix(server, data);
  if (wanted("api")) await apiAndRanges(server, data);
  if (wanted("load")) await firstLoad(server);
  if (wanted("load")) await firstScreen(server);
  if (wanted("idle")) await idle(server);
} finally {
  await server.stop();
}
if (wanted("save")) await bigSave();
if (wanted("copy")) await bigCopy("local");
if (wanted("copy")) await bigCopy("s3");
if (wanted("list")) await bigList();
if (wanted("replicas")) await replicas();
if (wanted("library")) await library();
if (wanted("scale")) await scale();
if (wanted("library100k")) await library100k();
if (wanted("ledger")) await ledger();
if (wanted("credentials")) await credentials();
rmSync(work, { recursive: true, force: true });

const machine = {
  cores: execFileSync("nproc", { encoding: "utf8" }).trim(),
  date: new Date().toISOString(),
  runs: RUNS,
};
// A subset (BENCH_ONLY) must not replace the full results.
if (!ONLY)
  writeFileSync(
    join(ROOT, "bench/results.json"),
    JSON.stringify({ machine, rows }, null, 2) + "\n",
  );
console.log("\n| figure | ours | reference | target | met |\n| --- | --- | --- | --- | --- |");
for (const r of rows)
  console.log(
    `| ${r.figure} | ${r.ours} | ${r.reference} | ${r.target} | ${r.met ? "yes" : "**no**"} |`,
  );
console.log(
  ONLY ? "\nBENCH_ONLY: bench/results.json left as it was" : "\nwritten to bench/results.json",
);
