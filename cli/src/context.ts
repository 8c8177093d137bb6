// What every command gets: the SDK client for --api/--rpc, the output, and the key (loaded only when a command
// signs): from an environment variable, an encrypted keystore file, or a hidden prompt. Keys never come from
// command-line arguments (they would land in shell history and `ps`).
import { readFileSync } from "node:fs";
import { AgentHub, type OwnWallet } from "@agenthub/sdk";
import { type Chain, createWalletClient, type Hex, http, isHex, type LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { UsageError } from "./exit-codes.ts";
import { decryptKeystore } from "./keystore.ts";
import { Output } from "./output.ts";
import { promptSecret } from "./prompt.ts";

export interface GlobalOptions {
  api: string;
  rpc: string;
  json: boolean;
  quiet: boolean;
  keyEnv: string;
  keystore?: string;
  promptKey?: boolean;
  /** Seconds to follow a pending write (string from the flag), or false for --no-wait. */
  wait: string | false;
  apiKey?: string;
  apiSecret?: string;
  adminToken?: string;
  header: string[];
}

export const ENV = {
  API: "AGENTHUB_API",
  RPC: "AGENTHUB_RPC",
  KEY: "AGENTHUB_PRIVATE_KEY",
  KEYSTORE: "AGENTHUB_KEYSTORE",
  KEYSTORE_PASSWORD: "AGENTHUB_KEYSTORE_PASSWORD",
  API_KEY: "AGENTHUB_API_KEY",
  API_SECRET: "AGENTHUB_API_SECRET",
  ADMIN_TOKEN: "AGENTHUB_ADMIN_TOKEN",
  /** The agent identity token owner's key, for agent steps' on-chain consents when the signing key is the wallet's. */
  OWNER_KEY: "AGENTHUB_OWNER_KEY",
} as const;

function parseHeaders(values: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const v of values) {
    const at = v.indexOf(":");
    if (at <= 0) throw new UsageError(`--header ${v}: expected name:value`);
    headers[v.slice(0, at).trim()] = v.slice(at + 1).trim();
  }
  return headers;
}

function pendingTimeoutMs(wait: string | false | undefined): number {
  if (wait === false) return 0;
  const seconds = Number(wait ?? "60");
  if (!Number.isFinite(seconds) || seconds < 0) throw new UsageError(`--wait ${wait}: expected seconds (0 or more)`);
  return Math.round(seconds * 1000);
}

export class Context {
  readonly out: Output;
  readonly hub: AgentHub;
  private account?: LocalAccount;

  constructor(readonly opts: GlobalOptions) {
    this.out = new Output({ json: opts.json, quiet: opts.quiet });
    this.hub = new AgentHub({
      apiUrl: opts.api,
      rpcUrl: opts.rpc,
      apiKey: opts.apiKey,
      apiSecret: opts.apiSecret,
      adminToken: opts.adminToken,
      headers: parseHeaders(opts.header ?? []),
      onProgress: this.out.progress,
      pendingTimeoutMs: pendingTimeoutMs(opts.wait),
    });
  }

  /** The signing account: --prompt-key, else --keystore (or $AGENTHUB_KEYSTORE), else $<--key-env>. */
  async signer(): Promise<LocalAccount> {
    if (this.account) return this.account;
    let key: string | undefined;
    const keystore = this.opts.keystore ?? process.env[ENV.KEYSTORE];
    if (this.opts.promptKey) {
      key = (await promptSecret("Private key (hidden): ")).trim();
    } else if (keystore) {
      let json: string;
      try {
        json = readFileSync(keystore, "utf8");
      } catch (error) {
        throw new UsageError(`cannot read the keystore ${keystore}: ${(error as Error).message}`);
      }
      const password = process.env[ENV.KEYSTORE_PASSWORD] ?? (await promptSecret(`Password for ${keystore}: `));
      key = decryptKeystore(json, password);
    } else {
      key = process.env[this.opts.keyEnv]?.trim();
      if (!key) {
        throw new UsageError(
          `this command signs: set ${this.opts.keyEnv}, pass --keystore <file> (password from ${ENV.KEYSTORE_PASSWORD} or a prompt), or --prompt-key`,
        );
      }
    }
    if (!isHex(key) || key.length !== 66) throw new UsageError("the private key must be 0x followed by 64 hex digits");
    this.account = privateKeyToAccount(key as Hex);
    return this.account;
  }

  /**
   * Who signs an agent step's on-chain consent (RunEscrow takes only the identity token owner's): $AGENTHUB_OWNER_KEY
   * when set (the signing key is then the agent's generated wallet), else the signing key itself.
   */
  consentOptions(): { consentSigner?: LocalAccount } {
    const key = process.env[ENV.OWNER_KEY]?.trim();
    if (!key) return {};
    if (!isHex(key) || key.length !== 66) throw new UsageError(`${ENV.OWNER_KEY} must be 0x followed by 64 hex digits`);
    return { consentSigner: privateKeyToAccount(key as Hex) };
  }

  /** The signer as a wallet on --rpc, for transactions sent from it (it pays gas). */
  async wallet(): Promise<OwnWallet> {
    const account = await this.signer();
    const { chainId } = await this.hub.config();
    const chain: Chain = {
      id: chainId,
      name: `chain ${chainId}`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [this.opts.rpc] } },
    };
    return createWalletClient({ account, chain, transport: http(this.opts.rpc) });
  }
}
