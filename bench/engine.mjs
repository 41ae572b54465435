// The local engine against ffmpeg (libx264, its preset's defaults) making the same clip.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { RENDER, RUNS, work, rows, median, seconds, row } from "./lib.mjs";

export async function engine() {
  console.log("\nlocal engine: 10 s 1280x720 24 fps");
  const ours = [];
  const ffmpeg = [];
  for (let i = 0; i < RUNS; i++) {
    ours.push(
      seconds(() =>
        execFileSync(RENDER, [
          "a red fox running through a snowy forest at sunset",
          join(work, "e.mp4"),
        ]),
      ),
    );
    ffmpeg.push(
      seconds(() =>
        execFileSync("ffmpeg", [
          "-loglevel",
          "error",
          "-y",
          "-f",
          "lavfi",
          "-i",
          "testsrc2=size=1280x720:rate=24:duration=10",
          "-c:v",
          "libx264",
          "-preset",
          "veryfast",
          join(work, "f.mp4"),
        ]),
      ),
    );
  }
  const ratio = median(ours) / median(ffmpeg);
  row(
    "local engine wall time (s)",
    median(ours).toFixed(3),
    `ffmpeg libx264 veryfast ${median(ffmpeg).toFixed(3)}`,
    "ratio <= 1.0",
    ratio <= 1.0,
  );
  rows.at(-1).ratio = Number(ratio.toFixed(3));
}
