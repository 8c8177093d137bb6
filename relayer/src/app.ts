// Internal HTTP interface of the relayer. Only the API talks to it, with a shared bearer token.
import { httpMetrics, metricsEndpoint, sameSecret } from "@agenthub/common/metrics";
import { Hono } from "hono";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { type Address, isAddress, isHex } from "viem";
import { z } from "zod";
import type { RelayTarget } from "./allowlist.ts";
import { RelayError, type Relayer } from "./relayer.ts";

const relayBody = z.object({
  target: z.enum([
    "AgentIdentity",
    "StakeVault",
    "RunEscrow",
    "InsurancePool",
    "SubscriptionVault",
    "AgentHubGovernor",
    "USDC",
  ]),
  data: z.string().refine((v) => isHex(v), "hex calldata"),
  idempotencyKey: z.string().min(1).max(200).optional(),
  // What the API request named; scoped functions (allowlist.ts, argumentChecks) act on nothing else.
  scope: z
    .object({
      agentId: z
        .string()
        .regex(/^\d{1,78}$/)
        .optional(),
      runId: z
        .string()
        .regex(/^\d{1,78}$/)
        .optional(),
      subscriptionId: z
        .string()
        .regex(/^\d{1,78}$/)
        .optional(),
    })
    .strict()
    .optional(),
});

const faucetBody = z.object({
  address: z.string().refine((v) => isAddress(v), "address"),
  usdc: z.string().regex(/^\d+$/).optional(),
  eth: z.string().regex(/^\d+$/).optional(),
});

const statusOf: Record<RelayError["code"], 400 | 403 | 422 | 502 | 504> = {
  NOT_ALLOWED: 403,
  TX_REVERTED: 422,
  TX_FAILED: 502,
  RECEIPT_TIMEOUT: 504,
};

export function createRelayerApp(opts: {
  relayer: Relayer;
  token: string;
  faucet?: (address: Address, usdc: bigint, eth: bigint) => Promise<{ usdcTx?: string; ethTx?: string }>;
  logger: Logger;
  registry: Registry;
  metricsToken?: string;
  /** Database and chain reachable (for /ready). */
  probe: () => Promise<Record<string, { ok: boolean; error?: string }>>;
}) {
  const app = new Hono();
  app.use("*", httpMetrics(opts.registry, "relayer"));
  // Liveness: the process answers. Never touches the database or the chain.
  app.get("/health", (c) => c.json({ ok: true, address: opts.relayer.address }));
  // Readiness: database and chain reachable; also what the API's /ready and /metrics report about the relayer.
  app.get("/ready", async (c) => {
    const checks = await opts.probe();
    const ready = Object.values(checks).every((check) => check.ok);
    return c.json({ ready, checks, ...opts.relayer.status() }, ready ? 200 : 503);
  });
  app.get("/metrics", metricsEndpoint(opts.registry, opts.metricsToken));
  app.use("/v1/*", async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    if (!sameSecret(header, `Bearer ${opts.token}`)) {
      return c.json({ error: { code: "UNAUTHORIZED", message: "relayer token required" } }, 401);
    }
    await next();
  });
  app.post("/v1/transactions", async (c) => {
    const parsed = relayBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return c.json({ error: { code: "VALIDATION_ERROR", message: parsed.error.message } }, 400);
    const scope = parsed.data.scope;
    const result = await opts.relayer.submit({
      target: parsed.data.target as RelayTarget,
      data: parsed.data.data as `0x${string}`,
      idempotencyKey: parsed.data.idempotencyKey,
      scope: scope && {
        agentId: scope.agentId === undefined ? undefined : BigInt(scope.agentId),
        runId: scope.runId === undefined ? undefined : BigInt(scope.runId),
        subscriptionId: scope.subscriptionId === undefined ? undefined : BigInt(scope.subscriptionId),
      },
    });
    return c.json(result);
  });
  if (opts.faucet) {
    const faucet = opts.faucet;
    app.post("/v1/faucet", async (c) => {
      const parsed = faucetBody.safeParse(await c.req.json().catch(() => undefined));
      if (!parsed.success) return c.json({ error: { code: "VALIDATION_ERROR", message: parsed.error.message } }, 400);
      const out = await faucet(
        parsed.data.address as Address,
        BigInt(parsed.data.usdc ?? "0"),
        BigInt(parsed.data.eth ?? "0"),
      );
      return c.json(out);
    });
  }
  app.onError((error, c) => {
    if (error instanceof RelayError) {
      return c.json(
        { error: { code: error.code, message: error.message, errorName: error.errorName, txHash: error.txHash } },
        statusOf[error.code],
      );
    }
    opts.logger.error({ err: error }, "relayer error");
    return c.json({ error: { code: "INTERNAL_ERROR", message: "internal relayer error" } }, 500);
  });
  return app;
}
