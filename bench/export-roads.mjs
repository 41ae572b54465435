// The export's harder roads, beside ffmpeg doing the same cut with its preset's defaults and
// every core: shots from late in their takes, 1080p takes with sound in a 720p cut, the sound
// of a 10-minute take at another rate (memory), and one server exporting twenty times in a row
// (memory). The takes are made by ffmpeg (H.264 and AAC, keyframes at its default interval, as
// a provider's are) and put in the library folder.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { auth, RUNS, median, row, rows, startServer, until, work } from "./lib.mjs";

const SHOTS = 10;

export async function call(url, method, path, body) {
  const res = await fetch(`${url}/api${path}`, {
    method,
    headers: auth,
    body: body && JSON.stringify(body),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** A process's memory in MB: `VmHWM` (its peak) or `VmRSS` (now). */
export const memoryMb = (pid, field) =>
  Number(readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`${field}:\\s+(\\d+)`))[1]) /
  1024;

/** Makes a take with ffmpeg: a test pattern with a tone, libx264 (veryfast) and AAC. */
export function take(path, { seconds, size, fps = 24, sampleRate = 48_000 }) {
  execFileSync("ffmpeg", [
    ...["-loglevel", "error", "-y"],
    ...["-f", "lavfi", "-i", `testsrc2=size=${size}:rate=${fps}`],
    ...["-f", "lavfi", "-i", `sine=frequency=440:sample_rate=${sampleRate}`],
    ...["-t", String(seconds), "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"],
    ...["-c:a", "aac", "-ac", "2", "-shortest", path],
  ]);
}

/** `count` copies of one take in the project's library folder; their file names. */
export function library(data, project, name, count, shape) {
  const folder = join(data, "media/projects", project);
  mkdirSync(folder, { recursive: true });
  take(join(folder, `${name}-0.mp4`), shape);
  const names = [`${name}-0.mp4`];
  for (let i = 1; i < count; i++) {
    copyFileSync(join(folder, names[0]), join(folder, `${name}-${i}.mp4`));
    names.push(`${name}-${i}.mp4`);
  }
  return names;
}

/** A sequence of `shots` ({take, in_s, out_s}) at 24 fps and `size`; its id. */
export async function sequence(url, project, size, shots) {
  const made = await call(url, "POST", `/projects/${project}/sequences`, {
    name: "Bench",
    fps: 24,
    size,
  });
  await call(url, "PUT", `/projects/${project}/sequences/${made.id}`, {
    ...made,
    shots: shots.map((shot, i) => ({ label: `Shot ${i + 1}`, ...shot })),
  });
  return made.id;
}

/** Exports the sequence as MP4 and waits until it is done; the seconds it took. */
export async function exported(url, project, id) {
  const start = performance.now();
  const job = await call(url, "POST", `/projects/${project}/sequences/${id}/exports`, {
    format: "mp4",
  });
  const path = `/jobs/sora/${encodeURIComponent(job.sora_job_id)}`;
  await until(async () => {
    const now = await call(url, "GET", path);
    if (now.status === "error") throw new Error(`export failed: ${now.error}`);
    return now.status === "done";
  }, 3_600_000);
  return (performance.now() - start) / 1000;
}

/** ffmpeg making the cut of `shots` from `folder`: each input sought to its in point (`-ss`
 * before `-i`, its fast seek), scaled to `size`, at 24 fps, joined with its sound, libx264
 * veryfast and AAC. The seconds it took. */
function ffmpegCut(folder, shots, size, out) {
  const [w, h] = size.split("x");
  const inputs = shots.flatMap((s) => [
    ...["-ss", String(s.in_s), "-t", String(s.out_s - s.in_s)],
    ...["-i", join(folder, s.take)],
  ]);
  const fitted = shots
    .map(
      (_, i) =>
        `[${i}:v]scale=${w}:${h}:force_original_aspect_ratio=increase,crop=${w}:${h},fps=24,` +
        `setpts=PTS-STARTPTS[v${i}];[${i}:a]aresample=48000,asetpts=PTS-STARTPTS[a${i}]`,
    )
    .join(";");
  const joined = `${shots.map((_, i) => `[v${i}][a${i}]`).join("")}concat=n=${shots.length}:v=1:a=1[v][a]`;
  const start = performance.now();
  execFileSync("ffmpeg", [
    ...["-loglevel", "error", "-y", ...inputs],
    ...["-filter_complex", `${fitted};${joined}`, "-map", "[v]", "-map", "[a]"],
    ...["-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", out],
  ]);
  return (performance.now() - start) / 1000;
}

/** Times the export of sequence `id` and ffmpeg making the same cut of `shots`, the median of
 * RUNS each, and writes the row `figure` (ours against ffmpeg's, `reference` naming it). */
async function againstFfmpeg(server, data, project, id, shots, size, figure, reference) {
  const ours = await medianOf(RUNS, () => exported(server.url, project, id));
  const folder = join(data, "media/projects", project);
  const ffmpeg = await medianOf(RUNS, () =>
    ffmpegCut(folder, shots, size, join(work, `ffmpeg-${project}.mp4`)),
  );
  row(figure, ours.toFixed(2), `${reference} ${ffmpeg.toFixed(2)}`, "ratio <= 1.0", ours <= ffmpeg);
  rows.at(-1).ratio = Number((ours / ffmpeg).toFixed(3));
  return ours;
}

export async function medianOf(runs, f) {
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await f());
  return median(times);
}

/** Ten 1 s shots from 18.5 s into 20 s takes, against ffmpeg's `-ss` and the same cut from the
 * takes' starts. */
async function lateInPoints(server, data) {
  const project = "bench-late";
  console.log("\nexport: ten 1 s shots from 18.5 s into 20 s takes (1280x720, sound)");
  const takes = library(data, project, "take", SHOTS, { seconds: 20, size: "1280x720" });
  const late = takes.map((take) => ({ take, in_s: 18.5, out_s: 19.5 }));
  const early = takes.map((take) => ({ take, in_s: 0, out_s: 1 }));
  const lateId = await sequence(server.url, project, "1280x720", late);
  const earlyId = await sequence(server.url, project, "1280x720", early);
  const ours = await againstFfmpeg(
    server,
    data,
    project,
    lateId,
    late,
    "1280x720",
    "export, ten 1 s shots from 18.5 s in (s)",
    "ffmpeg -ss",
  );
  const fromStart = await medianOf(RUNS, () => exported(server.url, project, earlyId));
  row(
    "export, the same shots from the takes' starts (s)",
    fromStart.toFixed(2),
    `late in points ${ours.toFixed(2)}`,
    "late <= 2x",
    ours <= 2 * fromStart,
  );
}

/** Ten 1 s shots from 50 s into 1080p takes with sound, in a 720p cut. */
async function scaledDown(server, data) {
  const project = "bench-1080";
  console.log("\nexport: ten 1 s shots from 50 s into 60 s 1080p takes, in a 720p cut");
  const takes = library(data, project, "take", SHOTS, { seconds: 60, size: "1920x1080" });
  const shots = takes.map((take) => ({ take, in_s: 50, out_s: 51 }));
  const id = await sequence(server.url, project, "1280x720", shots);
  await againstFfmpeg(
    server,
    data,
    project,
    id,
    shots,
    "1280x720",
    "export, 1080p takes in a 720p cut from 50 s (s)",
    "ffmpeg scale",
  );
}

/** The memory a 10-minute take at 48 kHz adds to a cut whose sound is at 44.1 kHz: the peak of
 * a fresh server after a short cut, then after the cut with the long take. */
async function longSoundMemory() {
  const data = join(work, "data-long-sound");
  const project = "bench-long";
  console.log("\nexport: a 10-minute 48 kHz take in a 44.1 kHz cut (320x180)");
  const [short] = library(data, project, "short", 1, {
    seconds: 2,
    size: "320x180",
    sampleRate: 44_100,
  });
  const [long] = library(data, project, "long", 1, { seconds: 600, size: "320x180" });
  const server = await startServer(data);
  try {
    const shortId = await sequence(server.url, project, "320x180", [
      { take: short, in_s: 0, out_s: 2 },
    ]);
    await exported(server.url, project, shortId);
    const before = memoryMb(server.pid, "VmHWM");
    const longId = await sequence(server.url, project, "320x180", [
      { take: short, in_s: 0, out_s: 2 },
      { take: long, in_s: 0, out_s: 600 },
    ]);
    const took = await exported(server.url, project, longId);
    const after = memoryMb(server.pid, "VmHWM");
    row(
      "peak memory a 10 min take at another rate adds (MB)",
      (after - before).toFixed(0),
      `${before.toFixed(0)} -> ${after.toFixed(0)} MB, ${took.toFixed(0)} s to export`,
      "<= 64",
      after - before <= 64,
    );
  } finally {
    await server.stop();
  }
}

/** A server of its own on data folder `name`, with ten 8 s 720p takes and a 60 s cut of 6 s
 * of each: `measure(server, project, id)` runs, then the server stops. */
async function onSixtySecondCut(name, flags, measure) {
  const data = join(work, name);
  const project = "bench-cut";
  const takes = library(data, project, "take", SHOTS, { seconds: 8, size: "1280x720" });
  const server = await startServer(data, flags);
  try {
    const shots = takes.map((take) => ({ take, in_s: 1, out_s: 7 }));
    const id = await sequence(server.url, project, "1280x720", shots);
    return await measure(server, project, id);
  } finally {
    await server.stop();
  }
}

/** One server exporting the same cut twenty times: resident memory after the first and after
 * the last. */
async function exportsAllDay() {
  console.log("\nexport: twenty exports of one cut on one server");
  await onSixtySecondCut("data-all-day", [], async (server, project, id) => {
    await exported(server.url, project, id);
    const first = memoryMb(server.pid, "VmRSS");
    for (let i = 1; i < 20; i++) await exported(server.url, project, id);
    const last = memoryMb(server.pid, "VmRSS");
    row(
      "resident memory after 20 exports vs after 1 (MB)",
      last.toFixed(0),
      `after the first ${first.toFixed(0)}, peak ${memoryMb(server.pid, "VmHWM").toFixed(0)}`,
      "<= first + 16",
      last <= first + 16,
    );
  });
}

/** What signing (Content Credentials) adds to an export: a 60 s cut of ten 6 s shots exported
 * by a server that signs and by one started with `--c2pa off`, each on a data folder of its
 * own holding the same takes. */
async function signingShare() {
  console.log("\nexport: a 60 s cut signed and with --c2pa off");
  const times = {};
  for (const c2pa of ["on", "off"])
    times[c2pa] = await onSixtySecondCut(
      `data-c2pa-${c2pa}`,
      ["--c2pa", c2pa],
      (server, project, id) => medianOf(RUNS, () => exported(server.url, project, id)),
    );
  const share = times.on / times.off - 1;
  row(
    "time signing adds to a 60 s export (%)",
    (share * 100).toFixed(1),
    `signed ${times.on.toFixed(2)} s, --c2pa off ${times.off.toFixed(2)} s`,
    "<= 20",
    share <= 0.2,
  );
}

/** ROADS=late,scaled,sound,day,signing runs some of these (all when unset). */
const ROADS = process.env.ROADS?.split(",");

export async function exportRoads(server, data) {
  const roads = {
    late: lateInPoints,
    scaled: scaledDown,
    sound: longSoundMemory,
    day: exportsAllDay,
    signing: signingShare,
  };
  for (const [name, road] of Object.entries(roads))
    if (!ROADS || ROADS.includes(name)) await road(server, data);
}
