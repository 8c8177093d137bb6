// Chromium for the browser tests, without root: the headless build shipped inside the npm package
// @sparticuz/chromium (unpacked once per user into a cache folder), or a system Chromium named by CHROMIUM_PATH.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import chromiumPackage from "@sparticuz/chromium";
import { type Browser, chromium, type LaunchOptions } from "playwright-core";

/** Flags every launch gets: no sandbox (containers, root), and nothing that reaches for the closed network. */
const BASE_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--no-first-run",
];
// Chromium takes its language from the POSIX locale: under C.UTF-8 (this machine's) navigator.language is
// "en-US@posix", a tag Intl refuses. Pages are tested in the language most users have (the app copes with the odd
// one: ChartBoundary); --lang does not change it, the environment does.
const LOCALE_ENV = { LANG: "en_US.UTF-8", LANGUAGE: "en_US" };
/** The package's flags that would change what a page test checks (same-origin policy, mixed content) or break it. */
const DROPPED_PACKAGE_ARGS = new Set([
  "--disable-web-security",
  "--allow-running-insecure-content",
  // Made for AWS Lambda's sandboxing; in one process a page that closes can take the whole browser down with it.
  "--single-process",
  "--no-zygote",
]);

const UNPACK_TIMEOUT_MS = 120_000;

/**
 * Where the packaged Chromium lives once unpacked. The package unpacks into os.tmpdir(); pointing TMPDIR at a
 * folder per user and version keeps users apart (the binary is mode 0700) and a lock plus a marker file keep
 * parallel test processes from starting a half-written binary.
 */
async function packagedChromium(): Promise<string> {
  const dir = join(tmpdir(), `agenthub-chromium-${userInfo().uid}-153`);
  const binary = join(dir, "chromium");
  const ready = join(dir, ".ready");
  if (existsSync(ready)) return binary;
  const lock = `${dir}.lock`;
  const deadline = Date.now() + UNPACK_TIMEOUT_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`another process holds ${lock}; remove it if no test is running`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    if (existsSync(ready)) return binary;
    rmSync(dir, { recursive: true, force: true }); // a partial unpack left by a killed process
    mkdirSync(dir, { recursive: true });
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = dir;
    try {
      const path = await chromiumPackage.executablePath();
      if (path !== binary) throw new Error(`@sparticuz/chromium unpacked to ${path}, expected ${binary}`);
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
    writeFileSync(ready, "");
    return binary;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The Chromium to test with: CHROMIUM_PATH when set (e.g. Debian's /usr/bin/chromium), else the npm package's. */
export async function chromiumLaunchOptions(extraArgs: string[] = []): Promise<LaunchOptions> {
  const system = process.env.CHROMIUM_PATH;
  const env = { ...process.env, ...LOCALE_ENV };
  if (system) return { executablePath: system, headless: true, args: [...BASE_ARGS, ...extraArgs], env };
  const packageArgs = chromiumPackage.args.filter(
    (arg) => !DROPPED_PACKAGE_ARGS.has(arg) && !arg.startsWith("--headless"),
  );
  return {
    executablePath: await packagedChromium(),
    headless: true,
    args: [...new Set([...packageArgs, ...BASE_ARGS, ...extraArgs])],
    env,
  };
}

/** Launches headless Chromium for a test file; close it in the file's `after`. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch(await chromiumLaunchOptions(extraArgs));
}
