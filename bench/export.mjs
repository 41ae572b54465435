// The MP4 export of a sequence against ffmpeg (libx264 at -preset veryfast, its preset's
// defaults, every core) making the same cut: ten 1280x720 takes trimmed to 6 s each, fitted
// and joined into 60 s at 24 fps. Also the export server's peak memory (VmHWM).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { auth, RUNS, median, row, rows, until } from "./lib.mjs";

const SHOTS = 10;
const SHOT_S = 6;

async function call(url, method, path, body) {
  const res = await fetch(`${url}/api${path}`, {
    method,
    headers: auth,
    body: body && JSON.stringify(body),
  });
  return res.json();
}

/** Peak resident memory of process `pid`, in MB. */
const peakMb = (pid) =>
  Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmHWM:\s+(\d+)/)[1]) / 1024;

export async function exportCut(server, data) {
  console.log(`\nsequence export: ${SHOTS} shots of ${SHOT_S} s, 1280x720 24 fps`);
  const project = "bench-cut";
  const takes = [];
  for (let i = 0; i < SHOTS; i++) {
    const job = await call(server.url, "POST", `/projects/${project}/jobs`, {
      prompt: `shot ${i}: a boat crossing a bay at dawn`,
      seconds: 8,
      size: "1280x720",
    });
    const path = `/jobs/sora/${encodeURIComponent(job.sora_job_id)}`;
    await until(async () => (await call(server.url, "GET", path)).status === "done", 600_000);
    await call(server.url, "POST", `${path}/save`, { project_id: project });
    takes.push(`${job.sora_job_id}.mp4`);
  }
  const made = await call(server.url, "POST", `/projects/${project}/sequences`, { name: "Bench" });
  const shots = takes.map((take, i) => ({
    label: `Shot ${i + 1}`,
    take,
    in_s: 1,
    out_s: 1 + SHOT_S,
  }));
  await call(server.url, "PUT", `/projects/${project}/sequences/${made.id}`, { ...made, shots });

  const ours = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const job = await call(
      server.url,
      "POST",
      `/projects/${project}/sequences/${made.id}/exports`,
      {
        format: "mp4",
      },
    );
    const path = `/jobs/sora/${encodeURIComponent(job.sora_job_id)}`;
    await until(async () => (await call(server.url, "GET", path)).status === "done", 900_000);
    ours.push((performance.now() - start) / 1000);
  }

  const inputs = takes.flatMap((take) => ["-i", join(data, "media/projects", project, take)]);
  const trims = takes
    .map(
      (_, i) =>
        `[${i}:v]trim=start=1:end=${1 + SHOT_S},setpts=PTS-STARTPTS,` +
        `scale=1280:720:force_original_aspect_ratio=increase,crop=1280:720,fps=24[v${i}]`,
    )
    .join(";");
  const joined = `${takes.map((_, i) => `[v${i}]`).join("")}concat=n=${SHOTS}:v=1:a=0[out]`;
  const ffmpeg = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    execFileSync("ffmpeg", [
      ...["-loglevel", "error", "-y", ...inputs],
      ...["-filter_complex", `${trims};${joined}`, "-map", "[out]"],
      ...["-c:v", "libx264", "-preset", "veryfast", join(data, "ffmpeg-cut.mp4")],
    ]);
    ffmpeg.push((performance.now() - start) / 1000);
  }
  const ratio = median(ours) / median(ffmpeg);
  row(
    "60 s sequence export, 10 shots 720p (s)",
    median(ours).toFixed(2),
    `ffmpeg libx264 veryfast ${median(ffmpeg).toFixed(2)}`,
    "ratio <= 1.0",
    ratio <= 1.0,
  );
  rows.at(-1).ratio = Number(ratio.toFixed(3));
  const peak = peakMb(server.pid);
  row("server peak memory after the exports (MB)", peak.toFixed(0), "-", "< 300", peak < 300);

  // The memory bound: a 30-minute cut of 500 shots (the same takes, 3.6 s of each, in turn).
  const long = await call(server.url, "POST", `/projects/${project}/sequences`, { name: "Long" });
  const many = Array.from({ length: 500 }, (_, i) => ({
    label: `Shot ${i + 1}`,
    take: takes[i % SHOTS],
    in_s: 1,
    out_s: 4.6,
  }));
  await call(server.url, "PUT", `/projects/${project}/sequences/${long.id}`, {
    ...long,
    shots: many,
  });
  const start = performance.now();
  const job = await call(server.url, "POST", `/projects/${project}/sequences/${long.id}/exports`, {
    format: "mp4",
  });
  const path = `/jobs/sora/${encodeURIComponent(job.sora_job_id)}`;
  await until(async () => (await call(server.url, "GET", path)).status === "done", 3_600_000);
  const took = (performance.now() - start) / 1000;
  const longPeak = peakMb(server.pid);
  row(
    "server peak memory after a 30 min, 500-shot export (MB)",
    longPeak.toFixed(0),
    `${took.toFixed(0)} s to export`,
    "< 300",
    longPeak < 300,
  );
}
