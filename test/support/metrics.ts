// Reading Prometheus text exposition in tests.

/** GET <baseUrl>/metrics with the metrics token; fails unless 200. */
export async function scrape(baseUrl: string, token: string): Promise<string> {
  const res = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET ${baseUrl}/metrics answered ${res.status}`);
  return res.text();
}

/** The value of series `name` whose labels include `labels` (undefined when there is none). */
export function metricValue(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = new Map([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    if (Object.entries(labels).every(([k, v]) => present.get(k) === v)) return Number(match[3]);
  }
  return undefined;
}
