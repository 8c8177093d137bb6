// The part of the client every call needs and nothing more: the typed HTTP client (openapi-fetch over the generated
// types), error mapping and the cached deployment config. It imports no signing or chain code (viem, x402), so the
// read-only entry (@agenthub/sdk/read) a browser page loads first stays small; Core (core.ts) adds the rest.
import createClient, { type Client, type Middleware } from "openapi-fetch";
import { AgentHubError } from "./errors.ts";
import type { paths } from "./generated/openapi.ts";
import type { Config } from "./types.ts";

export interface AgentHubReaderOptions {
  /** Base URL of the API, e.g. https://api.agenthub.example or http://localhost:3000. */
  apiUrl: string;
  /** An organization key (sent as x-api-key): scopes registrations and lists, plan rate limits. */
  apiKey?: string;
  /** The organization's secret (x-api-secret), for management calls with the key. */
  apiSecret?: string;
  /** The operator's admin token (organization creation, dispute resolution, report review). */
  adminToken?: string;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
}

type Result<D> = { data?: D; error?: unknown; response: Response };

export class ReadCore {
  readonly api: Client<paths>;
  readonly apiUrl: string;
  private configCache?: Promise<Config>;

  constructor(readonly options: AgentHubReaderOptions) {
    this.apiUrl = options.apiUrl.replace(/\/+$/, "");
    this.api = createClient<paths>({ baseUrl: this.apiUrl, fetch: options.fetch as never });
    this.api.use(this.authMiddleware());
  }

  private authMiddleware(): Middleware {
    const { apiKey, apiSecret, adminToken, headers } = this.options;
    return {
      onRequest: ({ request }) => {
        for (const [k, v] of Object.entries(headers ?? {})) request.headers.set(k, v);
        if (apiKey && !request.headers.has("x-api-key")) request.headers.set("x-api-key", apiKey);
        if (apiSecret && !request.headers.has("x-api-secret")) request.headers.set("x-api-secret", apiSecret);
        if (adminToken && !request.headers.has("authorization"))
          request.headers.set("authorization", `Bearer ${adminToken}`);
        return request;
      },
    };
  }

  /** The answer's data, or an AgentHubError carrying the API's code. */
  async call<D>(pending: Promise<Result<D>>): Promise<D> {
    return (await this.callWithResponse(pending)).data;
  }

  /** Like `call`, keeping the HTTP response (headers such as PAYMENT-RESPONSE). */
  async callWithResponse<D>(pending: Promise<Result<D>>): Promise<{ data: D; response: Response }> {
    let result: Result<D>;
    try {
      result = await pending;
    } catch (error) {
      if (error instanceof AgentHubError) throw error;
      throw AgentHubError.client("NETWORK_ERROR", `request to ${this.apiUrl} failed: ${(error as Error).message}`);
    }
    if (result.response.ok) return { data: result.data as D, response: result.response };
    throw AgentHubError.fromResponse(result.response, result.error);
  }

  /** GET /api/config, fetched once: chain id, contract addresses, USDC, payment recipient and prices. */
  config(): Promise<Config> {
    this.configCache ??= this.call(this.api.GET("/api/config")).catch((error) => {
      this.configCache = undefined;
      throw error;
    });
    return this.configCache;
  }

  /**
   * Unix seconds on the chain's clock (the clock every deadline is checked against), as the API reads it
   * (GET /api/time). Never the wall clock: a chain's time can run ahead of it (blocks mined faster than one a
   * second, a local chain's time travel), and an authorization dated by the wall clock would then be expired on
   * arrival. Core reads the chain itself when it has an RPC.
   */
  async chainTime(): Promise<bigint> {
    return BigInt((await this.call(this.api.GET("/api/time"))).unixSeconds);
  }
}
