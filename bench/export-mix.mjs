// The cut you deliver: an export with a music bed, a voice-over and its sound brought to the
// web's loudness, beside ffmpeg making the same cut and mix (`amix`, then `loudnorm` as its
// users run it, one pass); and the memory a 60-minute music file adds, uploaded and laid under
// a cut from 50 minutes in.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TOKEN, RUNS, row, rows, startServer, work } from "./lib.mjs";
import { call, exported, library, medianOf, memoryMb } from "./export-roads.mjs";

/** A sine of `hz` for `seconds`, as ffmpeg writes `path` (its extension picks the format). */
function tone(path, hz, seconds) {
  execFileSync("ffmpeg", [
    ...["-loglevel", "error", "-y", "-f", "lavfi"],
    ...["-i", `sine=frequency=${hz}:sample_rate=44100:duration=${seconds}`],
    ...["-ac", "2", path],
  ]);
  return path;
}

/** Uploads the sound file `path` to `project`: its id. */
async function upload(url, project, path, name) {
  const res = await fetch(`${url}/api/projects/${project}/sounds?name=${name}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/octet-stream" },
    body: readFileSync(path),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`upload ${name}: ${res.status} ${JSON.stringify(answer)}`);
  return answer.id;
}

/** A 1280x720 sequence of `shots` at 24 fps with `lanes` and `loudness`: its id. */
async function mixed(url, project, shots, lanes, loudness) {
  const made = await call(url, "POST", `/projects/${project}/sequences`, {
    name: "Mix",
    fps: 24,
    size: "1280x720",
    loudness,
  });
  await call(url, "PUT", `/projects/${project}/sequences/${made.id}`, {
    ...made,
    shots: shots.map((shot, i) => ({ label: `Shot ${i + 1}`, ...shot })),
    lanes,
  });
  return made.id;
}

/** ffmpeg making the cut of `shots` with the music from `musicIn` and the voice clips at
 * `voices` seconds, mixed (`amix`) and brought to -14 LUFS (`loudnorm`). The seconds it took. */
function ffmpegMix(folder, shots, music, musicIn, voice, voices, out) {
  const inputs = shots.flatMap((s) => [
    ...["-ss", String(s.in_s), "-t", String(s.out_s - s.in_s)],
    ...["-i", join(folder, s.take)],
  ]);
  const n = shots.length;
  const seconds = shots.reduce((sum, s) => sum + s.out_s - s.in_s, 0);
  const fitted = shots
    .map(
      (_, i) =>
        `[${i}:v]scale=1280:720:force_original_aspect_ratio=increase,crop=1280:720,fps=24,` +
        `setpts=PTS-STARTPTS[v${i}];[${i}:a]aresample=48000,asetpts=PTS-STARTPTS[a${i}]`,
    )
    .join(";");
  const joined = `${shots.map((_, i) => `[v${i}][a${i}]`).join("")}concat=n=${n}:v=1:a=1[v][takes]`;
  const split = `[${n + 1}:a]asplit=${voices.length}${voices.map((_, i) => `[vs${i}]`).join("")}`;
  const voiceChains = voices
    .map((at, i) => `[vs${i}]atrim=0:5,asetpts=PTS-STARTPTS,adelay=${at * 1000}:all=1[vo${i}]`)
    .join(";");
  const bed = `[${n}:a]atrim=${musicIn}:${musicIn + seconds},asetpts=PTS-STARTPTS,volume=-6dB[bed]`;
  const mix =
    `[takes][bed]${voices.map((_, i) => `[vo${i}]`).join("")}amix=inputs=${2 + voices.length}:` +
    `duration=first:normalize=0,loudnorm=I=-14:TP=-1[a]`;
  const start = performance.now();
  execFileSync("ffmpeg", [
    ...["-loglevel", "error", "-y", ...inputs, "-i", music, "-i", voice],
    ...["-filter_complex", [fitted, joined, bed, split, voiceChains, mix].join(";")],
    ...["-map", "[v]", "-map", "[a]", "-c:v", "libx264", "-preset", "veryfast"],
    ...["-c:a", "aac", "-ar", "48000", out],
  ]);
  return (performance.now() - start) / 1000;
}

/** A 60 s cut of ten 6 s shots with sound, a music bed and three voice clips, loudness web. */
async function mixAgainstFfmpeg(server, data) {
  const project = "bench-mix";
  console.log("\nexport: a 60 s cut with a music bed, three voice clips and -14 LUFS");
  const takes = library(data, project, "take", 10, { seconds: 8, size: "1280x720" });
  const shots = takes.map((take) => ({ take, in_s: 1, out_s: 7 }));
  const music = tone(join(work, "bed.mp3"), 220, 90);
  const voice = tone(join(work, "voice.flac"), 880, 5);
  const musicId = await upload(server.url, project, music, "Bed");
  const voiceId = await upload(server.url, project, voice, "Voice");
  const voices = [5, 25, 45];
  const lanes = {
    music: [{ sound: musicId, start_s: 0, in_s: 10, out_s: 70, gain_db: -6 }],
    voice: voices.map((at) => ({ sound: voiceId, start_s: at, in_s: 0, out_s: 5 })),
  };
  const id = await mixed(server.url, project, shots, lanes, "web");
  const plain = await mixed(server.url, project, shots, {}, "off");
  const ours = await medianOf(RUNS, () => exported(server.url, project, id));
  const without = await medianOf(RUNS, () => exported(server.url, project, plain));
  const folder = join(data, "media/projects", project);
  const ffmpeg = await medianOf(RUNS, () =>
    ffmpegMix(folder, shots, music, 10, voice, voices, join(work, "ffmpeg-mix.mp4")),
  );
  row(
    "export, 60 s with music, voice and -14 LUFS (s)",
    ours.toFixed(2),
    `ffmpeg amix + loudnorm ${ffmpeg.toFixed(2)}`,
    "ratio <= 1.0",
    ours <= ffmpeg,
  );
  rows.at(-1).ratio = Number((ours / ffmpeg).toFixed(3));
  row(
    "what the lanes and loudness add to that export (s)",
    (ours - without).toFixed(2),
    `the takes' sound alone ${without.toFixed(2)}`,
    "-",
    true,
  );
}

/** The memory a 60-minute music file adds: uploaded (decoded to its end) and laid under a
 * 10 s cut from 50 minutes in, on a fresh server, after a first export without it. */
async function longMusicMemory() {
  const data = join(work, "data-long-music");
  const project = "bench-long-music";
  console.log("\nexport: a 60-minute music file under a 10 s cut, from 50 minutes in");
  const [take] = library(data, project, "take", 1, { seconds: 10, size: "320x180" });
  const music = tone(join(work, "hour.mp3"), 220, 3600);
  const server = await startServer(data);
  try {
    const shots = [{ take, in_s: 0, out_s: 10 }];
    await exported(server.url, project, await mixed(server.url, project, shots, {}, "off"));
    const before = memoryMb(server.pid, "VmHWM");
    const started = performance.now();
    const musicId = await upload(server.url, project, music, "Hour");
    const uploaded = (performance.now() - started) / 1000;
    const lanes = { music: [{ sound: musicId, start_s: 0, in_s: 3000, out_s: 3010 }] };
    const took = await exported(
      server.url,
      project,
      await mixed(server.url, project, shots, lanes, "web"),
    );
    const after = memoryMb(server.pid, "VmHWM");
    row(
      "peak memory a 60 min music file adds (MB)",
      (after - before).toFixed(0),
      `${before.toFixed(0)} -> ${after.toFixed(0)} MB; upload ${uploaded.toFixed(1)} s, export ${took.toFixed(1)} s`,
      "<= 64",
      after - before <= 64,
    );
  } finally {
    await server.stop();
  }
}

export async function exportMix(server, data) {
  await mixAgainstFfmpeg(server, data);
  await longMusicMemory();
}
