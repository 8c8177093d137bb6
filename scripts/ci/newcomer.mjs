#!/usr/bin/env node
// The newcomer's path, checked: a fresh `git clone` (nothing built, nothing installed), `npm start` first, wait
// until the stack is ready, use it, Ctrl-C (SIGINT to npm's process group, as a terminal sends it), and assert
// that every port is free within 15 s and no process of the stack is left; then a second `npm start` right after;
// then a stale process holding one of the ports: `npm start` refuses, exits non-zero and names the holder's pid.
// Plain Node (any version the machine has): it runs before anything is installed. The stack's default ports, or
// those of PORT, RELAYER_PORT, CHAIN_PORT, INDEXER_PORT, EMBEDDED_PG_PORT and BUNDLER_PORT (passed on to npm start).
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, createWriteStream, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const portOf = (name, fallback) => Number(process.env[name] ?? fallback);
const PORTS = [
  portOf("PORT", 3000),
  portOf("RELAYER_PORT", 3001),
  portOf("CHAIN_PORT", 8545),
  portOf("INDEXER_PORT", 42069),
  portOf("EMBEDDED_PG_PORT", 54329),
  portOf("BUNDLER_PORT", 4337),
];
const API = `http://127.0.0.1:${PORTS[0]}`;
const START_TIMEOUT_MS = Number(process.env.NEWCOMER_START_TIMEOUT_MS ?? 15 * 60_000);
const STOP_BUDGET_MS = 15_000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (msg) => console.log(`[newcomer] ${msg}`);

function portFree(port) {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/** Processes whose working directory or command line lies inside the clone (the stack's own processes). */
function processesIn(dir) {
  const found = [];
  for (const pid of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    if (Number(pid) === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
      if (cwd.startsWith(dir) || cmd.includes(dir)) found.push(`${pid} ${cmd.slice(0, 160)}`);
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
}

async function json(method, path, body) {
  const res = await fetch(`${API}${path}`, {
    method,
    headers: body ? { "content-type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

/** Ready, not just alive: Postgres, chain, relayer and the indexer caught up (GET /ready answers 200). */
async function probeReady() {
  return fetch(`${API}/ready`, { signal: AbortSignal.timeout(5_000) }).then(
    (r) => r.status === 200,
    () => false,
  );
}

async function startAndStop(clone, round) {
  const busy = [];
  for (const port of PORTS) if (!(await portFree(port))) busy.push(port);
  if (busy.length) throw new Error(`ports already in use before start: ${busy.join(", ")}`);

  const logFile = join(clone, `..`, `npm-start-${round}.log`);
  const out = createWriteStream(logFile);
  const started = Date.now();
  // detached: npm leads a new process group, like a shell job; SIGINT to the group is what Ctrl-C sends.
  const npm = spawn("npm", ["start"], { cwd: clone, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  npm.stdout.pipe(out);
  npm.stderr.pipe(out);
  const exited = new Promise((resolve) => npm.once("exit", (code, signal) => resolve({ code, signal })));
  const tail = () => readFileSync(logFile, "utf8").split("\n").slice(-40).join("\n");

  try {
    let ready = false;
    while (!ready) {
      if (npm.exitCode !== null) throw new Error(`npm start exited with ${npm.exitCode} before ready:\n${tail()}`);
      if (Date.now() - started > START_TIMEOUT_MS)
        throw new Error(`not ready after ${START_TIMEOUT_MS} ms:\n${tail()}`);
      ready = await probeReady();
      if (!ready) await sleep(1000);
    }
    log(`round ${round}: ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);

    // Use it: a registration goes through chain, relayer, indexer and API.
    const reg = await json("POST", "/api/agents/register", { name: `newcomer-${round}` });
    if (reg.status !== 201) throw new Error(`registration answered ${reg.status} ${JSON.stringify(reg.body)}`);
    const agent = await json("GET", `/api/agents/${reg.body.agentId}`);
    if (agent.status !== 200) throw new Error(`agent ${reg.body.agentId} answered ${agent.status}`);
    const docs = await fetch(`${API}/docs`);
    if (docs.status !== 200) throw new Error(`/docs answered ${docs.status}`);
    log(`round ${round}: registered agent ${reg.body.agentId} and read it back`);
  } catch (error) {
    try {
      process.kill(-npm.pid, "SIGKILL");
    } catch {}
    throw error;
  }

  const stopAt = Date.now();
  process.kill(-npm.pid, "SIGINT");
  const deadline = stopAt + STOP_BUDGET_MS;
  let busyNow = PORTS;
  let left = [];
  while (Date.now() < deadline) {
    busyNow = [];
    for (const port of PORTS) if (!(await portFree(port))) busyNow.push(port);
    left = processesIn(clone);
    if (busyNow.length === 0 && left.length === 0) break;
    await sleep(250);
  }
  const { code, signal } = await Promise.race([exited, sleep(2000).then(() => ({ code: "still running" }))]);
  if (busyNow.length || left.length) {
    for (const line of left) {
      try {
        process.kill(Number(line.split(" ")[0]), "SIGKILL");
      } catch {}
    }
    throw new Error(
      `after Ctrl-C and ${STOP_BUDGET_MS} ms: ports still busy [${busyNow.join(", ")}], processes left:\n${left.join("\n")}\n${tail()}`,
    );
  }
  log(
    `round ${round}: Ctrl-C freed every port and process in ${((Date.now() - stopAt) / 1000).toFixed(1)} s (npm exit ${code ?? signal})`,
  );
}

/** A process from an earlier run still holds the relayer's port: npm start must refuse and name its pid. */
async function staleProcessReported(clone) {
  const port = PORTS[1];
  const holder = spawn(
    process.execPath,
    ["-e", `require("node:net").createServer().listen(${port}, "127.0.0.1", () => console.log("listening"))`],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  try {
    await new Promise((resolve, reject) => {
      holder.stdout.once("data", resolve);
      holder.once("exit", (code) => reject(new Error(`the stale stand-in exited with ${code}`)));
    });
    const started = Date.now();
    const npm = spawn("npm", ["start"], { cwd: clone, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    npm.stdout.on("data", (d) => (output += d));
    npm.stderr.on("data", (d) => (output += d));
    const code = await Promise.race([
      new Promise((resolve) => npm.once("exit", (c) => resolve(c))),
      sleep(120_000).then(() => "timeout"),
    ]);
    if (code === "timeout") {
      try {
        process.kill(-npm.pid, "SIGKILL");
      } catch {}
      throw new Error(`npm start did not exit within 120 s while port ${port} was held:\n${output}`);
    }
    if (code === 0) throw new Error(`npm start exited 0 while port ${port} was held:\n${output}`);
    if (!output.includes(`port ${port}: pid ${holder.pid} `)) {
      throw new Error(`npm start did not name pid ${holder.pid} holding port ${port}:\n${output}`);
    }
    const others = PORTS.filter((p) => p !== port);
    for (const p of others) if (!(await portFree(p))) throw new Error(`npm start left port ${p} busy:\n${output}`);
    log(
      `stale process: npm start refused in ${((Date.now() - started) / 1000).toFixed(1)} s (exit ${code}) naming pid ${holder.pid} on port ${port}`,
    );
  } finally {
    holder.kill("SIGKILL");
  }
}

const work = mkdtempSync(join(tmpdir(), "agenthub-newcomer-"));
// A clone lives in a folder others can enter (embedded Postgres runs as the postgres user when we are root).
chmodSync(work, 0o755);
const clone = join(work, "agenthub");
let failed = false;
try {
  execFileSync("git", ["clone", "--quiet", repo, clone], { stdio: "inherit" });
  log(
    `fresh clone of ${execFileSync("git", ["-C", clone, "rev-parse", "--short", "HEAD"]).toString().trim()} in ${clone}`,
  );
  await startAndStop(clone, 1);
  await startAndStop(clone, 2);
  await staleProcessReported(clone);
  log("ok");
} catch (error) {
  failed = true;
  console.error(`[newcomer] FAILED: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
