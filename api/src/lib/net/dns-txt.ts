// TXT lookups for domain verification through the real DNS resolver in deps (node:dns; built in server.ts).
// DNS_SERVER (host:port) points it at a specific server (tests run one on loopback).
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";

const NOT_FOUND = new Set(["ENODATA", "ENOTFOUND", "NXDOMAIN", "ENONAME"]);

/** The TXT values at `name` (each record's chunks joined); [] when the name or record does not exist. */
export async function lookupTxt(deps: Pick<Deps, "dns" | "logger">, name: string): Promise<string[]> {
  try {
    const records = await deps.dns.resolveTxt(name);
    return records.map((chunks) => chunks.join(""));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    if (NOT_FOUND.has(code)) return [];
    deps.logger.warn({ name, code }, "TXT lookup failed");
    throw apiError("DNS_LOOKUP_FAILED", `DNS lookup of ${name} failed (${code || "error"}); retry later`);
  }
}
