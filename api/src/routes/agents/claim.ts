import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import { RelayerCallError } from "@agenthub/relayer/client";
import { createRoute, z } from "@hono/zod-openapi";
import { type Address, getAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Deps } from "../../context.ts";
import { ApiError, errors } from "../../errors.ts";
import { router } from "../../lib/openapi.ts";
import { enforceRateLimit, LIMITS } from "../../lib/rate-limit.ts";
import { address, errorResponses, hexSignature, json, jsonBody } from "../../lib/schemas.ts";
import {
  finishClaim,
  hasGeneratedWallet,
  reopenClaim,
  startClaim,
  type WalletRow,
  walletByClaimCodeHash,
} from "../../stores/agent-wallets.ts";
import { hashClaimCode } from "../../use-cases/agents/register-agent.ts";
import { agentIdParam } from "./schemas.ts";

export const claimMessage = (agentId: number, userAddress: string) =>
  `I claim agent ${agentId} to address ${userAddress}`;

const claimInfo = z.object({
  agentId: z.number(),
  walletAddress: z.string(),
  ipfsHash: z.string(),
  expiresAt: z.string(),
});

const infoRoute = createRoute({
  method: "get",
  path: "/claim-info/{claimCode}",
  tags: ["agents"],
  request: { params: z.object({ claimCode: z.string().min(1).max(200) }) },
  responses: { 200: json(claimInfo, "Claim info"), ...errorResponses(400, 404) },
});

const claimRoute = createRoute({
  method: "post",
  path: "/{id}/claim",
  tags: ["agents"],
  summary: "Returns the agent wallet's private key exactly once and moves the identity token to userAddress",
  request: {
    params: agentIdParam,
    body: jsonBody(
      z.object({
        signature: hexSignature.openapi({
          description: "EIP-191 signature of 'I claim agent {agentId} to address {userAddress}'",
        }),
        userAddress: address,
        claimCode: z.string().min(1).max(200),
      }),
    ),
  },
  responses: {
    200: json(
      z.object({
        agentId: z.number(),
        privateKey: z.string(),
        walletAddress: z.string(),
        ownerAddress: z.string(),
        txHash: z.string(),
        keyErasedAt: z.string().openapi({
          description: "When AgentHub erases its copy of the key (a retry of this same claim until then returns it)",
        }),
        message: z.string(),
      }),
      "Claimed",
    ),
    ...errorResponses(400, 401, 404, 429),
  },
});

const walletByCode = (deps: Deps, claimCode: string) => walletByClaimCodeHash(deps, hashClaimCode(claimCode));

function assertClaimable(row: WalletRow) {
  if (row.claim_state !== null) throw new ApiError(400, "CLAIM_ALREADY_USED", "this agent has already been claimed");
  if (row.claim_expires_at.getTime() < Date.now())
    throw new ApiError(400, "CLAIM_CODE_EXPIRED", "the claim code has expired");
  if (!row.encrypted_key) throw new ApiError(400, "KEY_UNAVAILABLE", "the agent's key is no longer available");
}

async function assertSignedBy(deps: Deps, id: number, body: { signature: string; userAddress: string }) {
  const userAddress = getAddress(body.userAddress);
  // Wallets differ in address casing; the message may carry the address as sent or checksummed.
  for (const written of new Set([body.userAddress, userAddress])) {
    const signed = await deps.chain
      .verifyMessage({ address: userAddress, message: claimMessage(id, written), signature: body.signature as Hex })
      .catch(() => false);
    if (signed) return userAddress;
  }
  throw errors.unauthorized(
    "INVALID_SIGNATURE",
    `signature is not ${userAddress}'s over "${claimMessage(id, userAddress)}"`,
  );
}

/** The same claimant again (same code, address and signature) while the key is still held for them. */
const isRedelivery = (row: WalletRow, userAddress: string) =>
  row.claim_state !== null &&
  row.claimed_by === userAddress &&
  row.encrypted_key !== null &&
  (row.claim_state === "CLAIMING" || (row.key_redelivery_until !== null && row.key_redelivery_until > new Date()));

function refusedForGood(error: unknown): boolean {
  return error instanceof RelayerCallError && (error.code === "TX_REVERTED" || error.code === "NOT_ALLOWED");
}

/** Moves the token to the claimant (the generated wallet consents by EIP-712), at most once per claimant. */
async function transferToClaimant(deps: Deps, id: number, row: WalletRow, userAddress: Address, privateKey: Hex) {
  const claimSignature = await privateKeyToAccount(privateKey).signTypedData({
    domain: {
      name: "AgentHub Identity",
      version: "1",
      chainId: deps.deployments.chainId,
      verifyingContract: deps.deployments.contracts.AgentIdentity.address,
    },
    types: {
      Claim: [
        { name: "agentId", type: "uint256" },
        { name: "to", type: "address" },
      ],
    },
    primaryType: "Claim",
    message: { agentId: BigInt(id), to: userAddress },
  });
  try {
    // Keyed per claimant: a resumed claim returns the first transaction, a reopened claim is a new one.
    return await deps.relayer.call(
      "AgentIdentity",
      AgentIdentityAbi,
      "claimTransfer",
      [BigInt(id), userAddress, claimSignature],
      `claim:${id}:${userAddress}`,
    );
  } catch (error) {
    // Nothing can move any more: reopen the claim. An unknown outcome (timeout) keeps it CLAIMING for this
    // claimant, whose retry resumes the same transaction.
    if (refusedForGood(error)) {
      await reopenClaim(deps, row.wallet_address, userAddress);
    }
    throw error;
  }
}

export const claimRoutes = router()
  .openapi(infoRoute, async (c) => {
    const deps = c.get("deps");
    const row = await walletByCode(deps, c.req.valid("param").claimCode);
    if (!row) throw errors.notFound("CLAIM_CODE_INVALID", "unknown claim code");
    assertClaimable(row);
    return c.json(
      {
        agentId: Number(row.agent_id),
        walletAddress: row.wallet_address,
        ipfsHash: `ipfs://${row.metadata_cid}`,
        expiresAt: row.claim_expires_at.toISOString(),
      },
      200,
    );
  })
  .openapi(claimRoute, async (c) => {
    const deps = c.get("deps");
    // Counted here, after validation: malformed requests use up nobody's allowance.
    await enforceRateLimit(c, "claim", LIMITS.claim);
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const row = await walletByCode(deps, body.claimCode);
    if (!row || Number(row.agent_id) !== id) {
      if (!(await hasGeneratedWallet(deps, id))) throw errors.agentNotFound(id);
      throw errors.notFound("CLAIM_CODE_INVALID", "claim code does not belong to this agent");
    }
    const userAddress = await assertSignedBy(deps, id, body);

    let current = row;
    if (!isRedelivery(current, userAddress)) {
      assertClaimable(current);
      // Exactly one claimant moves the row out of the open state; the others see it claimed.
      if (!(await startClaim(deps, id, userAddress))) {
        // A parallel request of the same claimant may have won: that one is a redelivery too.
        current = (await walletByCode(deps, body.claimCode))!;
        if (!isRedelivery(current, userAddress)) {
          throw new ApiError(400, "CLAIM_ALREADY_USED", "this agent has already been claimed");
        }
      } else {
        current = { ...current, claim_state: "CLAIMING", claimed_by: userAddress };
      }
    }

    const privateKey = deps.keys.decrypt(current.encrypted_key!, current.wallet_address);
    const transfer = await transferToClaimant(deps, id, current, userAddress, privateKey);
    // The key stays (sealed) for a short redelivery window so a lost answer is never the only copy; then the
    // custody job erases it. Only this claimant, with the same code and a valid signature, can fetch it again.
    const redeliveryUntil = await finishClaim(deps, id, transfer.txHash, deps.env.CLAIM_KEY_REDELIVERY_SECONDS);
    // Read-your-writes for the common case; the answer never waits on (or fails with) the indexer.
    await deps.indexer.waitForBlock(BigInt(transfer.blockNumber), deps.env.INDEXER_WAIT_MS);
    const erasedAt = redeliveryUntil.toISOString();
    return c.json(
      {
        agentId: id,
        privateKey,
        walletAddress: current.wallet_address,
        ownerAddress: userAddress,
        txHash: transfer.txHash,
        keyErasedAt: erasedAt,
        message: `Save this private key now: it controls the agent's wallet. AgentHub erases its copy at ${erasedAt}; until then only a retry of this same claim can fetch it again.`,
      },
      200,
    );
  });
