// Accessibility check of the page as it is now: axe (WCAG 2 A/AA rules and best practices); a serious or critical
// violation fails, each listed with the elements it was found on.
import assert from "node:assert/strict";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "playwright-core";

export async function assertAccessible(page: Page, what: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(
    bad.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    [],
    `axe on ${what}`,
  );
}
