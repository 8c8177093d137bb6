// ops/alerts.yml, the Prometheus rules operators load, against what the stack's /metrics really exports: every
// series an expression names is served by the API or the relayer, with the labels the expression filters on, so a
// renamed series breaks this test instead of silencing an alert.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { parse } from "yaml";
import { repoRoot } from "../../scripts/lib/chain.ts";
import { registerAgent } from "../support/agents.ts";
import { scrape } from "../support/metrics.ts";
import { db, stack } from "../support/stack.ts";

after(() => db.end());

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: { severity?: string };
  annotations?: { summary?: string };
}
const file = parse(readFileSync(join(repoRoot, "ops", "alerts.yml"), "utf8")) as {
  groups: { name: string; rules: Rule[] }[];
};
const rules = file.groups.flatMap((g) => g.rules);

/** PromQL words that are not series names (functions, aggregations, keywords). */
const PROMQL = new Set(
  "min max sum avg count by without rate increase histogram_quantile clamp_min and or unless le on ignoring".split(" "),
);

/** Each series an expression selects, with the label names its matchers use. */
function selectors(expr: string): { name: string; labels: string[] }[] {
  const out: { name: string; labels: string[] }[] = [];
  const noStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  for (const m of noStrings.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?/g)) {
    const name = m[1]!;
    if (PROMQL.has(name) || !/^(agenthub|relayer)_/.test(name)) continue;
    const labels = [...(m[2] ?? "").matchAll(/(\w+)\s*(?:=~|!=|!~|=)/g)].map((l) => l[1]!);
    out.push({ name, labels });
  }
  return out;
}

/** Series name -> label names seen on its samples, from Prometheus text exposition. */
function exported(text: string): Map<string, Set<string>> {
  const series = new Map<string, Set<string>>();
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (!m) continue;
    const labels = series.get(m[1]!) ?? new Set<string>();
    for (const l of (m[2] ?? "").matchAll(/(\w+)="/g)) labels.add(l[1]!);
    series.set(m[1]!, labels);
  }
  return series;
}

describe("ops/alerts.yml", () => {
  it("is a rule file: every rule has a name, an expression, a severity and a summary", () => {
    assert.ok(rules.length >= 10);
    assert.equal(new Set(rules.map((r) => r.alert)).size, rules.length, "alert names are unique");
    for (const rule of rules) {
      assert.match(rule.alert, /^AgentHub[A-Za-z]+$/);
      assert.ok(rule.expr.trim(), rule.alert);
      assert.ok(["page", "ticket"].includes(rule.labels?.severity ?? ""), `${rule.alert} severity`);
      assert.ok(rule.annotations?.summary, `${rule.alert} summary`);
      if (rule.for) assert.match(rule.for, /^\d+[smh]$/);
      assert.ok(selectors(rule.expr).length > 0, `${rule.alert} selects a series`);
    }
  });

  it("names only series the API's and the relayer's /metrics export, with the labels it filters on", async () => {
    await registerAgent(); // a relayed transaction and API traffic, so the labelled counters have samples
    const token = stack.secrets.metricsToken;
    const series = exported(`${await scrape(stack.apiUrl, token)}\n${await scrape(stack.relayerUrl, token)}`);
    const missing: string[] = [];
    for (const rule of rules) {
      for (const { name, labels } of selectors(rule.expr)) {
        const seen = series.get(name);
        if (!seen) missing.push(`${rule.alert}: ${name}`);
        for (const label of labels) if (seen && !seen.has(label)) missing.push(`${rule.alert}: ${name}{${label}}`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
