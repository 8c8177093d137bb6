// Worker thread of WorkerRecoverer: recovers batches of (digest, r, s, v).
import { parentPort, workerData } from "node:worker_threads";
import { recoverAddress } from "./eip712.ts";
import { nativeRecoverer } from "./recover.ts";

const native = workerData?.impl === "native" ? nativeRecoverer() : undefined;

parentPort?.on(
  "message",
  async (batch: { id: number; digest: Uint8Array; r: bigint; s: bigint; recovery: number }[]) => {
    const out: [number, string | null, string?][] = [];
    for (const job of batch) {
      try {
        const sig = { r: job.r, s: job.s, recovery: job.recovery };
        out.push([job.id, native ? await native.recover(job.digest, sig) : recoverAddress(job.digest, sig)]);
      } catch (error) {
        out.push([job.id, null, (error as Error).message]);
      }
    }
    parentPort?.postMessage(out);
  },
);
