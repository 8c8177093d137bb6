// Steps a person takes in the web app, for the browser tests: a context of their own (own client IP and wallet),
// connecting the wallet, confirming the app's explanation of a signature, moving by keyboard.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import type { Browser, Locator, Page } from "playwright-core";
import { assertAccessible } from "./axe.ts";
import { launchChromium } from "./browser.ts";
import { db, freshIp, stack } from "./stack.ts";
import { injectWallet, type TestWallet } from "./wallet.ts";

export const webOrigin = new URL(stack.apiUrl).origin;

/** Script errors and CSP refusals a page reported; a file asserts the list is empty at its end. */
export const pageProblems: string[] = [];

/** One Chromium for the file (launched before its tests; closed with the database pool after them). */
export function browserForFile(): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await db.end();
  });
  return () => browser!;
}

/** A person in the browser: their own context (client address, wallet) and a page watched for errors. */
export async function person(browser: Browser, walletName: string): Promise<{ page: Page; wallet: TestWallet }> {
  const context = await browser.newContext({ baseURL: webOrigin, extraHTTPHeaders: { "x-forwarded-for": freshIp() } });
  const wallet = await injectWallet(context, walletName);
  const page = await context.newPage();
  page.on("pageerror", (e) => pageProblems.push(`pageerror ${walletName}: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && /Content.Security.Policy|Refused/i.test(m.text()))
      pageProblems.push(`csp ${walletName}: ${m.text()}`);
  });
  return { page, wallet };
}

/** Opens the header's wallet menu and connects the named wallet. */
export async function connect(page: Page, wallet: TestWallet): Promise<void> {
  await page.getByRole("button", { name: "Connect wallet" }).click();
  await page.getByRole("button", { name: wallet.name }).click();
  await page.getByText(wallet.address.slice(0, 6)).first().waitFor();
}

/**
 * Presses `button`, checks the app's explanation (a dialog titled `title` saying what is signed and what it costs;
 * nothing reaches the wallet before the person confirms) and confirms it. Returns the explanation's text.
 */
export async function confirmSigned(
  page: Page,
  button: Locator,
  title: string | RegExp,
  wallet: TestWallet,
  opts: { axe?: string } = {},
): Promise<string> {
  const before = wallet.requests.length;
  await button.click();
  const dialog = page.getByRole("dialog", { name: title });
  await dialog.waitFor();
  const text = (await dialog.textContent()) ?? "";
  assert.match(text, /Cost:/);
  if (opts.axe) await assertAccessible(page, opts.axe);
  assert.deepEqual(signatures(wallet.requests.slice(before)), [], "nothing is signed before the person confirms");
  await dialog.getByRole("button", { name: "Sign in my wallet" }).click();
  await dialog.waitFor({ state: "detached" });
  return text;
}

/** The signing methods among a wallet's requests. */
export const signatures = (requests: string[]) =>
  requests.filter((m) => m === "personal_sign" || m.startsWith("eth_signTypedData") || m === "eth_sendTransaction");

/** Presses Tab until the focused element is the one `target` finds (keyboard reachability), at most 80 times. */
export async function tabTo(page: Page, target: Locator): Promise<void> {
  const handle = await target.elementHandle();
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((el) => document.activeElement === el, handle)) return;
  }
  assert.fail(`not reachable by keyboard: ${target}`);
}

/** Nothing on the page is wider than its window (the page itself never scrolls sideways). */
export async function assertNoSidewaysScroll(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} is ${overflow}px wider than the screen`);
}

/** At phone width nothing is wider than the screen (no sideways scrolling). */
export async function assertFitsPhone(page: Page, what: string): Promise<void> {
  await page.setViewportSize({ width: 375, height: 740 });
  await assertNoSidewaysScroll(page, `${what} at phone width`);
  await page.setViewportSize({ width: 1280, height: 800 });
}
