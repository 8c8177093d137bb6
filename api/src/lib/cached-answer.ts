// Whole answers of the read pages, serialised once. A cached list's data still had to be re-shaped and
// JSON.stringify'd on every hit (about 30 µs of a 20-item page, a sixth of its CPU); this keeps the body itself, in
// the read cache (stores/read-cache.ts), under the same invalidation as the data: emptied by every change
// notification, never stored across one. Only 200s of requests without an organization key are kept (those see
// what row-level security lets them see).
import type { MiddlewareHandler } from "hono";
import type { AppEnv, Deps } from "../context.ts";
import { currentOrgScope } from "../db/org-scope.ts";

interface Answer {
  contentType: string;
  body: string;
}

/**
 * Route middleware: answers a GET from the cache when the same path and query were answered since the last change.
 * `stamp`: what the answer depends on besides stored data (chain time, protocol parameters), part of the key, so an
 * agent's status is judged at the current block even when its row did not change.
 */
export function cachedAnswer(stamp?: (deps: Deps) => Promise<string>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.get("org") || currentOrgScope() !== undefined) return next();
    const deps = c.get("deps");
    const url = c.req.url;
    // Path and query as sent (the origin varies with the Host of white-label sites; the answer does not).
    const key = `answer:${url.slice(url.indexOf("/", url.indexOf("//") + 2))}${stamp ? `#${await stamp(deps)}` : ""}`;
    const hit = deps.reads.get(key) as Answer | undefined;
    if (hit) return c.body(hit.body, 200, { "content-type": hit.contentType });
    const token = deps.reads.token();
    await next();
    if (c.res.status !== 200) return;
    const contentType = c.res.headers.get("content-type") ?? "application/json";
    deps.reads.set(key, { contentType, body: await c.res.clone().text() } satisfies Answer, token);
  };
}

/** The agent page's status is judged at chain time (whole seconds) against the current minimum stake. */
export async function chainTimeAndMinStake(deps: Deps): Promise<string> {
  const [now, { minStake }] = await Promise.all([deps.clock.now(), deps.params.current()]);
  return `${now}:${minStake}`;
}
