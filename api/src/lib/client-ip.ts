import { isIPv4, isIPv6 } from "node:net";
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

/**
 * The key per-IP limits count a client under: an IPv4 address as itself (also when written IPv4-mapped,
 * `::ffff:a.b.c.d`), an IPv6 address by its /64 — one subscriber's allocation, whose 2^64 addresses cost nothing to
 * rotate through. Anything unparsable is its own key.
 */
export function rateKeyOf(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIPv4(ip) || !isIPv6(ip)) return ip;
  const groups = expandIPv6(ip);
  // ::ffff:0:0/96 written in hex (::ffff:7f00:1) is IPv4 too.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (zone dropped, `::` and a dotted IPv4 tail expanded). */
function expandIPv6(ip: string): number[] {
  let text = ip.split("%")[0]!;
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const parse = (part: string | undefined) => (part ? part.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  return [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
}

/** The caller's rate-limit key: `clientIp`, IPv6 by its /64 (see rateKeyOf). */
export const clientKey = (c: Context, trustedHops: number): string => rateKeyOf(clientIp(c, trustedHops));
