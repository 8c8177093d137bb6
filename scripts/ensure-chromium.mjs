#!/usr/bin/env node
// The claim page is tested in a real headless Chromium. Browsers cannot be downloaded by Playwright here,
// so we use Debian's package: install it when missing (as root), or explain how.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const path = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (existsSync(path)) process.exit(0);
const isRoot = process.getuid?.() === 0;
if (!isRoot || !existsSync("/usr/bin/apt-get")) {
  console.error(
    `Chromium not found at ${path}. Install it (Debian: sudo apt-get install -y chromium) or set CHROMIUM_PATH.`,
  );
  process.exit(1);
}
console.log("[bootstrap] installing Debian's chromium for the browser test (one time)");
const run = (args) =>
  spawnSync("apt-get", args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
if (run(["install", "-y", "-q", "chromium"]).status !== 0) {
  run(["update", "-q"]);
  if (run(["install", "-y", "-q", "chromium"]).status !== 0) process.exit(1);
}
