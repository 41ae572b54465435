// What every benchmark shares: the settings, the table of rows, starting server-stub, nginx,
// moto and PostgreSQL, and wrk.
import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "..");
// The deployment's build (the production profile), not npm start's lighter one.
export const SERVER = join(ROOT, "target/production/server-stub");
export const RENDER = join(ROOT, "target/production/studio-render");
export const FAKES = join(ROOT, "target/release/provider-fakes");
export const TOKEN = "bench-token";
export const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/** BENCH_ONLY=engine,export,roads,api,... (the names in run.mjs) runs a subset. */
export const ONLY = process.env.BENCH_ONLY?.split(",");
export const wanted = (name) => !ONLY || ONLY.includes(name);
export const work = mkdtempSync(join(tmpdir(), "studio-bench-"));
// nginx's workers run as nobody: they must be able to read what they serve.
chmodSync(work, 0o755);
export const rows = [];

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
export const seconds = (f) => {
  const start = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - start) / 1e9;
};
export const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

export function row(figure, ours, reference, target, met, unit = "") {
  rows.push({ figure, ours, reference, target, met });
  console.log(
    `  ${met ? "met " : "MISS"}  ${figure}: ${ours}${unit} (reference ${reference}; target ${target})`,
  );
}

export async function startServer(data, extra = []) {
  const child = spawn(
    SERVER,
    [
      ...["--port", "0", "--data", data, "--api-token", TOKEN, "--app-dir", join(ROOT, "app/dist")],
      ...extra,
    ],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, RUST_LOG: "warn" },
    },
  );
  const url = await new Promise((ok) => {
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
      const m = out.match(/running at (http:\/\/[^\s]+)\//);
      if (m) ok(m[1]);
    });
  });
  return {
    url,
    pid: child.pid,
    stop: () => new Promise((r) => (child.on("exit", r), child.kill("SIGTERM"))),
  };
}

export async function api(url, path, body) {
  const res = await fetch(
    `${url}/api${path}`,
    body ? { method: "POST", headers: auth, body: JSON.stringify(body) } : { headers: auth },
  );
  return res.json();
}

export async function until(check, ms = 120_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** nginx on both cores with one `server` block, made by `server(port)`. */
export function startNginx(server) {
  const prefix = join(work, `nginx-${Math.random().toString(36).slice(2)}`);
  mkdirSync(join(prefix, "logs"), { recursive: true });
  const port = 20000 + Math.floor(Math.random() * 20000);
  writeFileSync(
    join(prefix, "nginx.conf"),
    `worker_processes auto; daemon off; error_log ${prefix}/logs/error.log; pid ${prefix}/nginx.pid;
     events { worker_connections 4096; }
     http { access_log off; sendfile on; tcp_nopush on; types { application/json json; video/mp4 mp4; }
       ${server(port)} }`,
  );
  const child = spawn("nginx", ["-p", prefix, "-c", join(prefix, "nginx.conf")], {
    stdio: "inherit",
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((r) => (child.on("exit", r), child.kill("SIGTERM"))),
  };
}

/** The documented nginx block for heavy media traffic (docs/configuration.md), word for word
 * but for its addresses. */
export function readmeMediaFront(data, studioUrl) {
  const readme = readFileSync(join(ROOT, "docs", "configuration.md"), "utf8");
  const block = /```nginx\n([\s\S]*?)```/.exec(readme)[1];
  return (port) =>
    block
      .replace("listen 8081;", `listen 127.0.0.1:${port};`)
      .replace("root /srv/studio/data;", `root ${data};`)
      .replace("proxy_pass http://127.0.0.1:8080;", `proxy_pass ${studioUrl};`);
}

export function wrk(url, headers = [], connections = 256) {
  const args = [
    "-t2",
    `-c${connections}`,
    "-d8s",
    "--latency",
    ...headers.flatMap((h) => ["-H", h]),
    url,
  ];
  const out = execFileSync("wrk", args, { encoding: "utf8" });
  const rps = Number(out.match(/Requests\/sec:\s+([\d.]+)/)[1]);
  const p99 = out.match(/99%\s+([\d.]+)(us|ms|s)/);
  const p99ms = Number(p99[1]) * { us: 0.001, ms: 1, s: 1000 }[p99[2]];
  const transfer = out.match(/Transfer\/sec:\s+([\d.]+)(B|KB|MB|GB)/);
  const mbps = Number(transfer[1]) * { B: 1e-6, KB: 1e-3, MB: 1, GB: 1000 }[transfer[2]];
  const errors = out.match(/Non-2xx or 3xx responses: (\d+)/);
  if (errors) throw new Error(`wrk saw ${errors[1]} failed responses at ${url}`);
  return { rps, p99ms, mbps };
}

export function readdirAssets() {
  return readdirSync(join(ROOT, "app/dist/assets"));
}

export function rssKb(pid, field) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))[1]);
}

/** A moto S3 server with a bucket, for the copy into S3-compatible storage. A random port may
 * be taken (moto then exits): another is tried. */
export async function startMoto(tries = 3) {
  const port = 40000 + Math.floor(Math.random() * 20000);
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    join(ROOT, "target/py/bin/moto_server"),
    ["-H", "127.0.0.1", "-p", String(port)],
    {
      stdio: "ignore",
    },
  );
  let exited = false;
  child.on("exit", () => (exited = true));
  await until(async () => {
    if (exited) return true;
    try {
      return (await fetch(`${url}/bench-bucket`, { method: "PUT" })).ok;
    } catch {
      return false;
    }
  });
  if (exited) {
    if (tries <= 1) throw new Error("moto did not start");
    return startMoto(tries - 1);
  }
  return { url, stop: () => child.kill("SIGTERM") };
}

/** A throwaway PostgreSQL cluster, as the replica tests make one (as `postgres` under root). */
export async function startPostgres() {
  const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(a) - Number(b));
  const bin = join("/usr/lib/postgresql", versions.at(-1), "bin");
  const dir = join(work, "pg");
  mkdirSync(dir);
  const owner = {};
  if (process.getuid() === 0) {
    const line = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((l) => l.startsWith("postgres:"));
    [owner.uid, owner.gid] = line.split(":").slice(2, 4).map(Number);
    execFileSync("chown", [`${owner.uid}:${owner.gid}`, dir]);
  }
  const data = join(dir, "data");
  execFileSync(join(bin, "initdb"), ["-U", "studio", "--auth=trust", "-E", "UTF8", "-D", data], {
    ...owner,
    stdio: "ignore",
  });
  const port = 40000 + Math.floor(Math.random() * 20000);
  const child = spawn(
    join(bin, "postgres"),
    ["-D", data, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1"],
    { ...owner, stdio: "ignore" },
  );
  await until(async () => {
    try {
      execFileSync(join(bin, "pg_isready"), ["-h", "127.0.0.1", "-p", String(port), "-q"]);
      return true;
    } catch {
      return false;
    }
  });
  return {
    url: `postgres://studio@127.0.0.1:${port}/postgres`,
    /** A new, empty database beside the first: its URL. */
    database: (name) => {
      const at = ["-h", "127.0.0.1", "-p", String(port), "-U", "studio"];
      execFileSync(join(bin, "createdb"), [...at, name]);
      return `postgres://studio@127.0.0.1:${port}/${name}`;
    },
    stop: () => new Promise((r) => (child.on("exit", r), child.kill("SIGINT"))),
  };
}
