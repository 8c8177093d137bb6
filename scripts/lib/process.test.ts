// The stop path's deadline (Ctrl-C frees every port within 15 s): a service that ignores SIGTERM is killed when its
// time is up, a healthy one exits on SIGTERM at once.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startProcess } from "./process.ts";

/** A real Node process that prints "up" once its handlers are installed. */
function service(script: string) {
  const lines: string[] = [];
  const proc = startProcess(
    "test",
    process.execPath,
    ["-e", `${script}; console.log("up"); setInterval(() => {}, 1000)`],
    {
      quiet: true,
      onLine: (line) => lines.push(line),
    },
  );
  const up = new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (lines.includes("up")) resolve(clearInterval(timer));
      if (proc.child.exitCode !== null) reject(new Error(`exited with ${proc.child.exitCode}`));
    }, 20);
  });
  return { proc, up };
}

describe("stopping a service", () => {
  it("kills a service that ignores SIGTERM once killAfterMs has passed", async () => {
    const { proc, up } = service(`process.on("SIGTERM", () => {})`);
    await up;
    const t0 = performance.now();
    await proc.stop(400);
    const elapsed = performance.now() - t0;
    assert.equal(proc.child.signalCode, "SIGKILL");
    assert.ok(elapsed >= 380 && elapsed < 3_000, `stopped after ${elapsed.toFixed(0)} ms`);
  });

  it("does not wait for the deadline when the service exits on SIGTERM", async () => {
    const { proc, up } = service("");
    await up;
    const t0 = performance.now();
    await proc.stop(10_000);
    assert.equal(proc.child.signalCode, "SIGTERM");
    assert.ok(performance.now() - t0 < 3_000);
  });
});
