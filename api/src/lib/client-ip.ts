import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";

/**
 * The caller's IP. Each trusted proxy appends the address it received the request from to X-Forwarded-For, so with
 * `trustedHops` proxies the client is the entry `trustedHops` from the right (Express's `trust proxy = n`); entries
 * further left were written by the client and prove nothing. Without proxies (0) it is the socket peer.
 */
export function clientIp(c: Context, trustedHops: number): string {
  const peer = socketPeer(c);
  if (trustedHops <= 0) return peer;
  const hops = (c.req.header("x-forwarded-for") ?? "")
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  if (hops.length === 0) return peer;
  // Fewer entries than proxies: the request skipped a proxy; the leftmost is still written by one of ours.
  return hops[Math.max(0, hops.length - trustedHops)]!;
}

function socketPeer(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}
