// Who recovers signatures: libsecp256k1 (native addon) inline when it loads, else @noble/curves inline, or a pool
// of worker threads. Measured in bench/recover.ts; the choice is recorded in docs/decisions.md.
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { type Address, getAddress, keccak256, toHex } from "viem";
import { type ParsedSignature, recoverAddress } from "./eip712.ts";

export interface Recoverer {
  readonly name: string;
  recover(digest: Uint8Array, sig: ParsedSignature): Promise<Address>;
  close(): Promise<void>;
}

/** @noble/curves on the event loop (~1 ms per recovery). */
export class InlineRecoverer implements Recoverer {
  readonly name = "noble";
  async recover(digest: Uint8Array, sig: ParsedSignature): Promise<Address> {
    return recoverAddress(digest, sig);
  }
  async close(): Promise<void> {}
}

interface NativeSecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed?: boolean): Uint8Array;
}

let nativeModule: NativeSecp256k1 | null | undefined;
function loadNative(): NativeSecp256k1 | null {
  if (nativeModule !== undefined) return nativeModule;
  try {
    // The `secp256k1` package falls back to pure-JS elliptic when its prebuilt binary does not load: use only the
    // binding itself.
    const require = createRequire(import.meta.url);
    const root = require.resolve("secp256k1/package.json").replace(/package\.json$/, "");
    const addon = require(`${root}bindings.js`) as NativeSecp256k1;
    nativeModule = addon;
  } catch {
    nativeModule = null;
  }
  return nativeModule;
}

function bytes32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** libsecp256k1 through the `secp256k1` addon (~50 µs per recovery); undefined when the binary is unavailable. */
export function nativeRecoverer(): Recoverer | undefined {
  const native = loadNative();
  if (!native) return undefined;
  return {
    name: "libsecp256k1",
    async recover(digest, sig) {
      const compact = new Uint8Array(64);
      compact.set(bytes32(sig.r), 0);
      compact.set(bytes32(sig.s), 32);
      const pub = native.ecdsaRecover(compact, sig.recovery, digest, false);
      return getAddress(toHex(keccak256(pub.subarray(1), "bytes").subarray(12)));
    },
    async close() {},
  };
}

interface Job {
  resolve: (a: Address) => void;
  reject: (e: Error) => void;
}

/**
 * Recovery on worker threads: the event loop only hashes and posts. Requests of one tick travel as one message
 * per worker, so the messaging cost is amortised under load.
 */
export class WorkerRecoverer implements Recoverer {
  readonly name: string;
  private readonly workers: Worker[];
  private readonly jobs = new Map<number, Job>();
  private nextId = 0;
  private next = 0;
  private batch: { id: number; digest: Uint8Array; r: bigint; s: bigint; recovery: number }[] = [];
  private scheduled = false;

  constructor(threads: number, impl: "noble" | "native" = "noble") {
    this.name = `${threads} worker(s), ${impl}`;
    this.workers = Array.from({ length: threads }, () => {
      const w = new Worker(new URL("./recover-worker.ts", import.meta.url), { workerData: { impl } });
      w.on("message", (results: [number, string | null, string?][]) => {
        for (const [id, address, error] of results) {
          const job = this.jobs.get(id);
          this.jobs.delete(id);
          if (!job) continue;
          if (address) job.resolve(address as Address);
          else job.reject(new Error(error ?? "recovery failed"));
        }
        // Idle workers must not keep the process alive; busy ones must.
        if (this.jobs.size === 0) for (const worker of this.workers) worker.unref();
      });
      w.on("error", (error) => {
        for (const job of this.jobs.values()) job.reject(error);
        this.jobs.clear();
      });
      w.unref();
      return w;
    });
  }

  recover(digest: Uint8Array, sig: ParsedSignature): Promise<Address> {
    const id = this.nextId++;
    this.batch.push({ id, digest, r: sig.r, s: sig.s, recovery: sig.recovery });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return new Promise((resolve, reject) => this.jobs.set(id, { resolve, reject }));
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.batch;
    this.batch = [];
    for (const worker of this.workers) worker.ref();
    const per = Math.ceil(batch.length / this.workers.length);
    for (let i = 0; i < batch.length; i += per) {
      const worker = this.workers[this.next++ % this.workers.length]!;
      worker.postMessage(batch.slice(i, i + per));
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** The fastest recoverer available here: libsecp256k1 inline, else @noble/curves inline. */
export function defaultRecoverer(): Recoverer {
  return nativeRecoverer() ?? new InlineRecoverer();
}
