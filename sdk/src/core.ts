// The shared core of every feature module: ReadCore (the typed HTTP client, error mapping, the cached deployment
// config) plus chain reads, following pending writes, signed-request building and progress reporting.
import { createPublicClient, type Hex, http, type PublicClient } from "viem";
import { AgentHubError } from "./errors.ts";
import { buildActionMessage } from "./protocol/index.ts";
import { type AgentHubReaderOptions, ReadCore } from "./read-core.ts";
import { type Signer, type SignerLike, toSigner } from "./signer.ts";

export interface Progress {
  /** sign: waiting for a signature; api: request in flight; chain: waiting for a receipt; retry: asked again. */
  stage: "sign" | "api" | "chain" | "retry";
  message: string;
  txHash?: Hex;
}

export interface AgentHubOptions extends AgentHubReaderOptions {
  /** JSON-RPC URL of the chain (permit nonces, chain time, receipts of your own transactions). */
  rpcUrl?: string;
  /** Or a viem public client of your own. */
  publicClient?: PublicClient;
  /** Called while a flow waits for a signature, the API, or the chain. */
  onProgress?: (progress: Progress) => void;
  /** Lifetime of signed-request messages in seconds (the API accepts at most 3600; default 300). */
  signatureTtlSeconds?: number;
  /**
   * How long a write the API answered TX_PENDING or INDEXER_LAGGING (it is on chain, or on its way) is followed
   * until its effect shows, in milliseconds (default 60000; 0 throws the pending error at once). The write is never
   * sent again: the flow reads until it sees the result, reporting each look as "retry" progress. Run steps are
   * followed; other writes throw the pending error at once.
   */
  pendingTimeoutMs?: number;
}

/** A write that answered one of these happened, or may still: its effect is followed, the write is not re-sent. */
const PENDING_CODES = new Set<string>(["TX_PENDING", "INDEXER_LAGGING"]);
const DEFAULT_PENDING_TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Core extends ReadCore {
  private publicClientCache?: PublicClient;

  constructor(override readonly options: AgentHubOptions) {
    super(options);
  }

  progress(stage: Progress["stage"], message: string, txHash?: Hex): void {
    this.options.onProgress?.({ stage, message, txHash });
  }

  /** Whether pending writes are followed (pendingTimeoutMs > 0). */
  get followsPending(): boolean {
    return (this.options.pendingTimeoutMs ?? DEFAULT_PENDING_TIMEOUT_MS) > 0;
  }

  /**
   * Sends a write; when the API answers it pending (TX_PENDING, INDEXER_LAGGING), polls `confirm` with backoff
   * until it returns the write's result, at most `pendingTimeoutMs`, emitting "retry" progress before each look.
   * `confirm` answers undefined while the effect does not show yet. On timeout the pending error is thrown.
   */
  async followPending<D>(what: string, write: () => Promise<D>, confirm: () => Promise<D | undefined>): Promise<D> {
    try {
      return await write();
    } catch (error) {
      const timeoutMs = this.options.pendingTimeoutMs ?? DEFAULT_PENDING_TIMEOUT_MS;
      if (!(error instanceof AgentHubError) || !PENDING_CODES.has(error.code) || timeoutMs <= 0) throw error;
      const deadline = Date.now() + timeoutMs;
      let delay = 250;
      for (let attempt = 1; ; attempt++) {
        const left = deadline - Date.now();
        if (left <= 0) {
          this.progress("retry", `${what}: still ${error.code} after ${Math.round(timeoutMs / 1000)} s; giving up`);
          throw error;
        }
        this.progress("retry", `${what}: ${error.code}; looking again in ${delay} ms (attempt ${attempt})`);
        await sleep(Math.min(delay, left));
        const result = await confirm().catch((lookError) => {
          // A busy or unreachable API while following is another reason to look again, not a verdict.
          if (lookError instanceof AgentHubError && (lookError.retryable || lookError.status === 0)) return undefined;
          throw lookError;
        });
        if (result !== undefined) return result;
        delay = Math.min(delay * 2, 2_000);
      }
    }
  }

  /** A public client on the configured RPC; flows that read the chain need one. */
  async chain(): Promise<PublicClient> {
    if (this.options.publicClient) return this.options.publicClient;
    if (!this.options.rpcUrl) {
      throw AgentHubError.client("RPC_REQUIRED", "this flow reads the chain: pass rpcUrl (or publicClient)");
    }
    if (!this.publicClientCache) {
      const { chainId } = await this.config();
      this.publicClientCache = createPublicClient({
        chain: {
          id: chainId,
          name: `chain ${chainId}`,
          nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
          rpcUrls: { default: { http: [this.options.rpcUrl] } },
        },
        transport: http(this.options.rpcUrl),
        pollingInterval: 250,
      });
    }
    return this.publicClientCache;
  }

  /** Unix seconds on the chain's clock: the latest block through the configured RPC, or without one the API's. */
  override async chainTime(): Promise<bigint> {
    if (!this.options.rpcUrl && !this.options.publicClient) return super.chainTime();
    return (await (await this.chain()).getBlock({ blockTag: "latest" })).timestamp;
  }

  /** Waits for a transaction of the caller's own wallet and fails when it reverted. */
  async waitForReceipt(hash: Hex, what: string) {
    this.progress("chain", `waiting for ${what} (${hash}) to be mined`, hash);
    const receipt = await (await this.chain()).waitForTransactionReceipt({ hash, timeout: 120_000 });
    if (receipt.status !== "success") throw AgentHubError.client("TX_FAILED", `${what} ${hash} reverted`);
    return receipt;
  }

  /** `{message, signature}` of an EIP-4361 signed request for `action` on (`kind`, `id`), with a fresh nonce. */
  async signAction(signer: SignerLike, action: string, kind: string, id: string | number) {
    const s: Signer = toSigner(signer);
    const { nonce, uri } = await this.call(this.api.GET("/api/auth/nonce"));
    const message = buildActionMessage({
      address: s.address,
      action,
      kind,
      id,
      nonce,
      apiUrl: uri,
      ttlSeconds: this.options.signatureTtlSeconds,
    });
    this.progress("sign", `signing ${action} ${kind} ${id} as ${s.address}`);
    return { message, signature: await s.signMessage({ message }) };
  }
}
