import { StakeVaultAbi } from "@agenthub/common/generated/abis";
import { createRoute, z } from "@hono/zod-openapi";
import { requireAdmin } from "../../auth/admin.ts";
import type { Deps } from "../../context.ts";
import { activeStake } from "../../domain/agent-status.ts";
import { REPORT_CATEGORIES } from "../../domain/report-risk.ts";
import { ApiError } from "../../errors.ts";
import { chainClock } from "../../lib/chain-time.ts";
import { clientIp } from "../../lib/client-ip.ts";
import { idempotencyKeyHeader, idempotencyKeyOf, idempotencyKeyReused } from "../../lib/idempotency.ts";
import { stakeEventCount } from "../../lib/indexed-events.ts";
import { router } from "../../lib/openapi.ts";
import { enforceRateLimit } from "../../lib/rate-limit.ts";
import { relayMapped } from "../../lib/relay-mapped.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import {
  claimSlashKey,
  findAgent,
  releaseSlashKey,
  slashHistory,
  stakeEventsOfTx,
  statusOf,
} from "../../stores/agents.ts";
import { insertAnonymousReport } from "../../stores/reports.ts";
import { requireAgent } from "../../use-cases/guards.ts";
import { agentIdParam, agentStatus, slashEntry } from "../agents/schemas.ts";

/** One vocabulary for both report endpoints (see domain/report-risk.ts). */
export const REPORT_REASONS = REPORT_CATEGORIES;

/** Anonymous reports per client IP. */
const REPORT_LIMITS = [{ windowSec: 3600, max: 10 }];

const reportRoute = createRoute({
  method: "post",
  path: "/api/agents/{id}/report",
  tags: ["moderation"],
  summary: "Flag an agent for review (anyone may report; 10 reports per hour per IP)",
  request: {
    params: agentIdParam,
    body: jsonBody(
      z.object({
        reason: z
          .string()
          .transform((v) => v.trim().toUpperCase())
          .pipe(z.enum(REPORT_REASONS)),
        details: z.string().trim().min(1).max(2000),
      }),
    ),
  },
  responses: {
    201: json(
      z.object({
        reportId: z.number(),
        agentId: z.number(),
        status: z.literal("PENDING"),
        reportCount: z.number(),
        message: z.string(),
      }),
      "Report filed",
    ),
    ...errorResponses(400, 404, 429),
  },
});

const slashRoute = createRoute({
  method: "post",
  path: "/api/agents/{id}/slash",
  tags: ["moderation"],
  summary:
    "Admin: slash a percentage of the agent's stake to the treasury (on chain; counts a strike: FROZEN, BANNED at the third; at most 10 moderation slashes per day, else 429 SLASH_RATE_LIMITED). Send an Idempotency-Key header: a retry with the same key answers the first slash instead of slashing twice",
  security: [{ adminToken: [] }],
  middleware: [requireAdmin] as const,
  request: {
    params: agentIdParam,
    headers: z.object({ "idempotency-key": idempotencyKeyHeader }),
    body: jsonBody(z.object({ reason: z.string().trim().min(1).max(500), percentage: z.number().gt(0).max(100) })),
  },
  responses: {
    200: json(
      z.object({
        success: z.boolean(),
        agentId: z.number(),
        slashedAmount: z.string(),
        percentage: z.number(),
        remainingStake: z.string(),
        status: agentStatus,
        txHash: z.string(),
        slashHistory: z.array(slashEntry),
      }),
      "Slashed",
    ),
    ...errorResponses(400, 401, 404, 422, 429),
  },
});

/** True when `key` is new (now bound to this slash); false for a retry of the same slash; 422 for another one. */
async function bindSlashKey(deps: Deps, key: string, agentId: number, bps: number, reason: string) {
  const claim = await claimSlashKey(deps, key, { agentId, bps, reason });
  if (claim === "other") throw idempotencyKeyReused();
  return claim === "new";
}

export const moderationRoutes = router()
  .openapi(reportRoute, async (c) => {
    const deps = c.get("deps");
    // Counted here, after validation: malformed requests use up nobody's allowance.
    await enforceRateLimit(c, "report", REPORT_LIMITS);
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    await requireAgent(deps, id);
    const r = await insertAnonymousReport(deps, {
      agentId: id,
      reason: body.reason,
      details: body.details,
      reporterIp: clientIp(c, deps.env.TRUST_PROXY),
      filedAt: await chainClock(deps).now(),
    });
    return c.json(
      {
        reportId: Number(r.id),
        agentId: id,
        status: "PENDING" as const,
        reportCount: Number(r.count),
        message: "Report received; moderators review reports before any slash.",
      },
      201,
    );
  })
  .openapi(slashRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const { reason, percentage } = c.req.valid("json");
    await requireAgent(deps, id);
    const bps = Math.round(percentage * 100);
    const key = idempotencyKeyOf(c);
    // A retry of a keyed slash resumes the first one (the relayer answers the same transaction), even if that
    // slash took the whole stake.
    const retry = key !== undefined && !(await bindSlashKey(deps, key, id, bps, reason));
    if (!retry) {
      // The chain decides what can be slashed (the indexer may not have seen the latest deposit yet).
      const onChain = await deps.chain.readContract({
        address: deps.deployments.contracts.StakeVault.address,
        abi: StakeVaultAbi,
        functionName: "stakeOf",
        args: [BigInt(id)],
      });
      if (onChain === 0n) {
        if (key !== undefined) await releaseSlashKey(deps, key);
        throw new ApiError(400, "INSUFFICIENT_STAKE", "the agent has no stake to slash");
      }
    }
    // The vault sends moderation slashes to the treasury, needs a reason and limits how many it takes per day.
    const relayed = await relayMapped(
      deps,
      "StakeVault",
      StakeVaultAbi,
      "slash",
      [BigInt(id), BigInt(bps), reason],
      key === undefined ? undefined : `admin-slash:${key}`,
      { StakeVaultSlashRateLimited: { status: 429, code: "SLASH_RATE_LIMITED" } },
      { agentId: BigInt(id) },
    ).catch(async (error) => {
      // Refused in the relayer's simulation: nothing was sent, so the key may be used again later.
      if (key !== undefined && error instanceof ApiError && error.code === "SLASH_RATE_LIMITED") {
        await releaseSlashKey(deps, key);
      }
      throw error;
    });
    // The slash and the trust state it sets (FROZEN, or BANNED at the third strike) are both indexed.
    const rows = stakeEventCount(deps.deployments.contracts.StakeVault.address, relayed.logs);
    const slashed = await waitForIndexer(
      `slash ${relayed.txHash}`,
      async () => {
        const row = await stakeEventsOfTx(deps, relayed.txHash);
        return row.n >= rows && row.slashed !== null ? { amount: row.slashed } : undefined;
      },
      deps.env.INDEXER_WAIT_MS,
    );
    const updated = (await findAgent(deps, id))!;
    return c.json(
      {
        success: true,
        agentId: id,
        slashedAmount: slashed.amount,
        percentage: bps / 100,
        remainingStake: activeStake(updated.stake).toString(),
        status: statusOf(updated, await chainClock(deps).now(), (await deps.params.current()).minStake),
        txHash: relayed.txHash,
        slashHistory: await slashHistory(deps, id),
      },
      200,
    );
  });
