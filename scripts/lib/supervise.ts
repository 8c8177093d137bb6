// Keeps a service of the local stack running: when it exits on its own (a crash, an OOM kill, `kill -9`), it is
// started again after a backoff, and both the exit and the restart are logged loudly. A service that keeps crashing
// without ever staying up gives the stack up (`onGiveUp`), so nothing sits half-alive without saying so.
import type { Managed } from "./process.ts";

export interface SuperviseOptions {
  log: (msg: string) => void;
  /** Delay before the first restart; doubles with each crash that follows quickly, up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** A run at least this long counts as healthy: the next crash starts the backoff from the beginning again. */
  healthyAfterMs?: number;
  /** Consecutive quick crashes after which the service is not started again. */
  maxQuickCrashes?: number;
  onGiveUp?: (name: string) => void;
}

export interface Supervised {
  readonly name: string;
  /** The running process (after a restart, the new one). */
  readonly current: Managed;
  /** How often it has been restarted. */
  readonly restarts: number;
  /** From now on an exit is a crash to restart (before, the start-up's own wait reports it). */
  arm(): void;
  /** Stops the service for good (no restart) within the caller's deadline. */
  stop(killAfterMs?: number): Promise<void>;
}

/** Supervises `first`, started by `start` (also the restart), e.g. a relayer or an indexer child process. */
export function supervise(
  name: string,
  first: Managed,
  start: () => Promise<Managed>,
  opts: SuperviseOptions,
): Supervised {
  const backoffMs = opts.backoffMs ?? 1_000;
  const maxBackoffMs = opts.maxBackoffMs ?? 30_000;
  const healthyAfterMs = opts.healthyAfterMs ?? 60_000;
  const maxQuickCrashes = opts.maxQuickCrashes ?? 8;
  let current = first;
  let startedAt = Date.now();
  let armed = false;
  let stopped = false;
  let restarts = 0;
  let quickCrashes = 0;
  let timer: NodeJS.Timeout | undefined;
  let restarting: Promise<void> | undefined;

  const retry = (delay: number) => {
    timer = setTimeout(() => {
      restarting = restart();
    }, delay);
  };
  const backoff = () => Math.min(maxBackoffMs, backoffMs * 2 ** (quickCrashes - 1));

  const exited = (proc: Managed, code: number | null, signal: NodeJS.Signals | null) => {
    if (stopped || !armed || proc !== current) return;
    const ranMs = Date.now() - startedAt;
    quickCrashes = ranMs >= healthyAfterMs ? 1 : quickCrashes + 1;
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (quickCrashes > maxQuickCrashes) {
      opts.log(`!! ${name} exited (${how}) ${quickCrashes} times in a row: not restarting it, stopping the stack`);
      opts.onGiveUp?.(name);
      return;
    }
    const delay = backoff();
    opts.log(`!! ${name} exited unexpectedly (${how}) after ${(ranMs / 1000).toFixed(1)} s; restarting in ${delay} ms`);
    retry(delay);
  };
  const watch = (proc: Managed) => {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
      exited(proc, proc.child.exitCode, proc.child.signalCode);
    } else {
      proc.child.once("exit", (code, signal) => exited(proc, code, signal));
    }
  };

  const restart = async () => {
    if (stopped) return;
    try {
      const proc = await start();
      if (stopped) {
        await proc.stop();
        return;
      }
      current = proc;
      startedAt = Date.now();
      restarts++;
      opts.log(`!! ${name} restarted (pid ${proc.child.pid}, restart ${restarts})`);
      watch(proc);
    } catch (error) {
      quickCrashes++;
      if (quickCrashes > maxQuickCrashes) {
        opts.log(`!! ${name} failed to restart ${quickCrashes} times in a row: stopping the stack`);
        opts.onGiveUp?.(name);
        return;
      }
      const delay = backoff();
      opts.log(`!! ${name} failed to restart (${(error as Error).message}); trying again in ${delay} ms`);
      retry(delay);
    }
  };

  watch(first);
  return {
    name,
    get current() {
      return current;
    },
    get restarts() {
      return restarts;
    },
    arm() {
      armed = true;
      startedAt = Date.now();
    },
    async stop(killAfterMs) {
      stopped = true;
      clearTimeout(timer);
      await restarting?.catch(() => {});
      await current.stop(killAfterMs);
    },
  };
}
