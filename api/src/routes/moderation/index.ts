import { StakeVaultAbi } from "@agenthub/common/generated/abis";
import { createRoute, z } from "@hono/zod-openapi";
import { requireAdmin } from "../../auth/admin.ts";
import type { Deps } from "../../context.ts";
import { activeStake } from "../../domain/agent-status.ts";
import { ApiError, apiError } from "../../errors.ts";
import { chainClock } from "../../lib/chain-time.ts";
import { idempotencyKeyHeader, idempotencyKeyOf, idempotencyKeyReused } from "../../lib/idempotency.ts";
import { stakeEventCount } from "../../lib/indexed-events.ts";
import { router } from "../../lib/openapi.ts";
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
import { requireAgent } from "../../use-cases/guards.ts";
import { agentIdParam, agentStatus, slashEntry } from "../agents/schemas.ts";

const slashRoute = createRoute({
  method: "post",
  path: "/{id}/slash",
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

export const moderationRoutes = router().openapi(slashRoute, async (c) => {
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
      throw apiError("INSUFFICIENT_STAKE", "the agent has no stake to slash");
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
    { StakeVaultSlashRateLimited: "SLASH_RATE_LIMITED" },
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
