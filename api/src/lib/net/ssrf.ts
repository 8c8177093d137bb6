// Which addresses the uptime checker may connect to. Agents choose their webhook URL, so without this guard the
// service could be made to probe its own network (SSRF). Every hop (including redirect targets) is resolved first,
// every resolved address is classified, and the connection goes to the address that was checked (no second lookup
// that DNS rebinding could answer differently).
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

export type AddressClass = "public" | "loopback" | "private" | "link-local" | "reserved";

function list(v4: string[], v6: string[]): BlockList {
  const b = new BlockList();
  for (const cidr of v4) {
    const [net, bits] = cidr.split("/");
    b.addSubnet(net!, Number(bits), "ipv4");
  }
  for (const cidr of v6) {
    const [net, bits] = cidr.split("/");
    b.addSubnet(net!, Number(bits), "ipv6");
  }
  return b;
}

const CLASSES: [AddressClass, BlockList][] = [
  ["loopback", list(["127.0.0.0/8"], ["::1/128"])],
  ["private", list(["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"], ["fc00::/7"])],
  ["link-local", list(["169.254.0.0/16"], ["fe80::/10"])],
  [
    "reserved",
    list(
      [
        "0.0.0.0/8",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
      ],
      ["::/128", "ff00::/8", "2001:db8::/32", "100::/64"],
    ),
  ],
];

/** The 8 groups of an IPv6 address as numbers (handles :: and a dotted IPv4 tail). */
function ipv6Groups(ip: string): number[] {
  let text = ip.toLowerCase();
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const fill = tail === undefined ? [] : new Array(8 - h.length - t.length).fill("0");
  return [...h, ...fill, ...t].map((g) => Number.parseInt(g || "0", 16));
}

/** IPv4 embedded in an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) IPv6 address. */
function embeddedIpv4(ip: string): string | null {
  const g = ipv6Groups(ip);
  const mapped = g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0);
  if (!mapped && !nat64) return null;
  return [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff].join(".");
}

export function classifyAddress(ip: string): AddressClass {
  let address = ip.replace(/^\[|\]$/g, "");
  let family = isIP(address);
  if (family === 0) return "reserved";
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) {
      address = v4;
      family = 4;
    }
  }
  const type = family === 4 ? "ipv4" : "ipv6";
  for (const [cls, blocks] of CLASSES) if (blocks.check(address, type)) return cls;
  return "public";
}

/**
 * Public addresses are always allowed. With `allowPrivate` (local mode and tests) loopback and private ranges are
 * allowed too. Link-local (cloud metadata endpoints such as 169.254.169.254) and reserved ranges never are.
 */
export function addressAllowed(cls: AddressClass, allowPrivate: boolean): boolean {
  return cls === "public" || (allowPrivate && (cls === "loopback" || cls === "private"));
}

export class BlockedTargetError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly cls: AddressClass,
  ) {
    super(`refusing to connect to ${host} (${address}, ${cls})`);
  }
}

/** Resolves `host` and returns an address to connect to, or throws BlockedTargetError if any address is refused. */
export async function resolveTarget(host: string, allowPrivate: boolean): Promise<{ address: string; family: 4 | 6 }> {
  const bare = host.replace(/^\[|\]$/g, "");
  const literal = isIP(bare);
  const addresses =
    literal !== 0
      ? [{ address: bare, family: literal as 4 | 6 }]
      : (await lookup(bare, { all: true, verbatim: true })).map((a) => ({
          address: a.address,
          family: a.family as 4 | 6,
        }));
  if (addresses.length === 0) throw new Error(`no address for ${host}`);
  // Every answer must be acceptable: a name that resolves to one public and one private address is refused.
  for (const a of addresses) {
    const cls = classifyAddress(a.address);
    if (!addressAllowed(cls, allowPrivate)) throw new BlockedTargetError(host, a.address, cls);
  }
  return addresses[0]!;
}
