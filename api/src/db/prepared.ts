// Named (prepared) statements for hot reads: Postgres plans a named statement once per connection (then reuses a
// generic plan) instead of planning the query text on every request, which for the API's joins over the indexer's
// views costs more than executing them. Only for statement texts from a bounded set (no values inlined in the
// text): each distinct text stays prepared on every pooled connection.
import { createHash } from "node:crypto";
import type { QueryConfig } from "pg";

const names = new Map<string, string>();

export function prepared(text: string, values: unknown[]): QueryConfig {
  let name = names.get(text);
  if (!name) {
    name = `q_${createHash("sha1").update(text).digest("hex").slice(0, 16)}`;
    names.set(text, name);
  }
  return { name, text, values };
}
