// Content Credentials: the time and memory signing adds to a 500 MB video, beside a plain copy
// of the same file (the least a save of it costs). The file is ffmpeg's 1080p test pattern at a
// high bit rate, repeated without re-encoding to about 500 MB.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { ROOT, RUNS, median, row, work } from "./lib.mjs";

export async function credentials() {
  const folder = join(work, "credentials");
  mkdirSync(folder, { recursive: true });
  const clip = join(folder, "clip.mp4");
  const big = join(folder, "big.mp4");
  execFileSync("ffmpeg", [
    ...["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30"],
    ...["-t", "10", "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "50M", clip],
  ]);
  const clipBytes = statSync(clip).size;
  const loops = Math.max(0, Math.ceil((500 * 1024 * 1024) / clipBytes) - 1);
  execFileSync("ffmpeg", [
    ...["-loglevel", "error", "-y", "-stream_loop", String(loops), "-i", clip],
    ...["-c", "copy", big],
  ]);
  const size = statSync(big).size;
  console.log(`\nContent Credentials: signing ${(size / 1048576).toFixed(0)} MB`);
  const signer = join(ROOT, "target/production/studio-sign");
  const signed = [];
  const copied = [];
  let peak = 0;
  for (let i = 0; i < RUNS; i++) {
    const out = JSON.parse(
      execFileSync(signer, [big, join(folder, "signed.mp4"), join(folder, "data")], {
        encoding: "utf8",
      }),
    );
    signed.push(out.seconds);
    peak = Math.max(peak, out.peak_after_mib - out.peak_before_mib);
    const start = performance.now();
    copyFileSync(big, join(folder, "copy.mp4"));
    copied.push((performance.now() - start) / 1000);
  }
  const sign = median(signed);
  const copy = median(copied);
  row(
    `signing a ${(size / 1048576).toFixed(0)} MB MP4 (s)`,
    sign.toFixed(2),
    `plain copy ${copy.toFixed(2)} s`,
    "memory flat",
    peak < 64,
  );
  row(
    "memory signing adds (MiB, peak)",
    peak.toFixed(1),
    `${(size / 1048576).toFixed(0)} MB file`,
    "< 64",
    peak < 64,
  );
  rmSync(folder, { recursive: true, force: true });
}
