// One health check: a HEAD request to an agent's webhook URL (spec §8: HEAD, 10 s timeout; 2xx UP; 4xx, 5xx,
// timeout and refused connections DOWN). Redirects are followed by hand, at most MAX_REDIRECTS hops, each hop
// resolved and checked by the SSRF guard before any connection is made; the final answer decides.
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { BlockedTargetError, resolveTarget } from "./ssrf.ts";

export const MAX_REDIRECTS = 3;

export interface CheckResult {
  up: boolean;
  statusCode: number | null;
  /** Time to the final response's headers, redirects included (successful checks only). */
  latencyMs: number | null;
  /** Why a check is DOWN: HTTP_<status>, TIMEOUT, CONNECTION_REFUSED, BLOCKED_TARGET, DNS_FAILED, ... */
  error: string | null;
  /** The URL whose answer decided the check. */
  target: string;
}

export interface CheckOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

/**
 * One HTTP request to `url`, connecting only to the already-checked `target` address (no second DNS answer).
 * Resolves with the response's status and Location once the headers arrive; the body is discarded.
 */
export function pinnedRequest(
  url: URL,
  target: { address: string; family: 4 | 6 },
  init: { method: "HEAD" | "POST"; headers: Record<string, string>; body?: string },
  signal: AbortSignal,
): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === "https:" ? https : http;
    const headers =
      init.body === undefined
        ? init.headers
        : { ...init.headers, "content-length": String(Buffer.byteLength(init.body)) };
    const req = mod.request(
      url,
      { method: init.method, agent: false, lookup: pinnedLookup(target.address, target.family), signal, headers },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, location: res.headers.location });
        res.destroy();
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

const head = (url: URL, target: { address: string; family: 4 | 6 }, signal: AbortSignal) =>
  pinnedRequest(
    url,
    target,
    { method: "HEAD", headers: { "user-agent": "AgentHub-Uptime/1.0", accept: "*/*" } },
    signal,
  );

function errorCode(err: unknown, signal: AbortSignal): string {
  if (err instanceof BlockedTargetError) return "BLOCKED_TARGET";
  if (signal.aborted) return "TIMEOUT";
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === "ECONNREFUSED") return "CONNECTION_REFUSED";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "ENODATA") return "DNS_FAILED";
  if (code === "ECONNRESET") return "CONNECTION_RESET";
  if (code === "ETIMEDOUT") return "TIMEOUT";
  if (code?.startsWith("ERR_TLS") || code?.includes("CERT")) return "TLS_ERROR";
  return code ?? "REQUEST_FAILED";
}

/** Runs one check; never throws. */
export async function checkEndpoint(url: string, opts: CheckOptions): Promise<CheckResult> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  const started = performance.now();
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    return { up: false, statusCode: null, latencyMs: null, error: "INVALID_URL", target: url };
  }
  const down = (error: string, statusCode: number | null = null): CheckResult => ({
    up: false,
    statusCode,
    latencyMs: null,
    error,
    target: current.href,
  });
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      if (current.protocol !== "http:" && current.protocol !== "https:") return down("UNSUPPORTED_SCHEME");
      const target = await Promise.race([
        resolveTarget(current.hostname, opts.allowPrivate),
        new Promise<never>((_, reject) => {
          if (signal.aborted) reject(signal.reason);
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        }),
      ]);
      const res = await head(current, target, signal);
      if (res.status >= 300 && res.status < 400 && res.location) {
        current = new URL(res.location, current);
        continue;
      }
      if (res.status >= 200 && res.status < 300) {
        return {
          up: true,
          statusCode: res.status,
          latencyMs: Math.max(0, Math.round(performance.now() - started)),
          error: null,
          target: current.href,
        };
      }
      return down(`HTTP_${res.status}`, res.status);
    }
    return down("TOO_MANY_REDIRECTS");
  } catch (err) {
    return down(errorCode(err, signal));
  }
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return out;
}
