// TXT lookups for domain verification through a real DNS resolver (node:dns). DNS_SERVER (host:port) points it
// at a specific server (tests run one on loopback); otherwise the system's resolvers answer.
import { Resolver } from "node:dns/promises";
import type { Deps } from "../../context.ts";
import { ApiError } from "../../errors.ts";

const resolvers = new WeakMap<object, Resolver>();

function resolverFor(deps: Deps): Resolver {
  let r = resolvers.get(deps);
  if (!r) {
    r = new Resolver({ timeout: deps.env.DNS_TIMEOUT_MS, tries: 2 });
    if (deps.env.DNS_SERVER) r.setServers([deps.env.DNS_SERVER]);
    resolvers.set(deps, r);
  }
  return r;
}

const NOT_FOUND = new Set(["ENODATA", "ENOTFOUND", "NXDOMAIN", "ENONAME"]);

/** The TXT values at `name` (each record's chunks joined); [] when the name or record does not exist. */
export async function lookupTxt(deps: Deps, name: string): Promise<string[]> {
  try {
    const records = await resolverFor(deps).resolveTxt(name);
    return records.map((chunks) => chunks.join(""));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    if (NOT_FOUND.has(code)) return [];
    deps.logger.warn({ name, code }, "TXT lookup failed");
    throw new ApiError(503, "DNS_LOOKUP_FAILED", `DNS lookup of ${name} failed (${code || "error"}); retry later`);
  }
}
