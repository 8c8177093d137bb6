import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import { createRoute, z } from "@hono/zod-openapi";
import { getAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Deps } from "../../context.ts";
import { ApiError, errors } from "../../errors.ts";
import { router } from "../../lib/openapi.ts";
import { LIMITS, rateLimit } from "../../lib/rate-limit.ts";
import { address, errorResponses, hexSignature, json, jsonBody } from "../../lib/schemas.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import { hashClaimCode } from "./register.ts";
import { agentIdParam } from "./schemas.ts";

export const claimMessage = (agentId: number, userAddress: string) =>
  `I claim agent ${agentId} to address ${userAddress}`;

interface WalletRow {
  wallet_address: string;
  agent_id: string | null;
  encrypted_key: Buffer | null;
  claim_code_hash: string;
  claim_expires_at: Date;
  claim_state: string | null;
  metadata_cid: string | null;
}

const claimInfo = z.object({
  agentId: z.number(),
  walletAddress: z.string(),
  ipfsHash: z.string(),
  expiresAt: z.string(),
});

const infoRoute = createRoute({
  method: "get",
  path: "/api/agents/claim-info/{claimCode}",
  tags: ["agents"],
  request: { params: z.object({ claimCode: z.string().min(1).max(200) }) },
  responses: { 200: json(claimInfo, "Claim info"), ...errorResponses(400, 404) },
});

const claimRoute = createRoute({
  method: "post",
  path: "/api/agents/{id}/claim",
  tags: ["agents"],
  summary: "Returns the agent wallet's private key exactly once and moves the identity token to userAddress",
  middleware: [rateLimit("claim", LIMITS.claim)] as const,
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
        message: z.string(),
      }),
      "Claimed",
    ),
    ...errorResponses(400, 401, 404, 429),
  },
});

async function walletByCode(deps: Deps, claimCode: string): Promise<WalletRow | undefined> {
  const r = await deps.pool.query<WalletRow>(
    `select w.*, p.metadata_cid from api.agent_wallet w left join api.agent_profile p on p.agent_id = w.agent_id
      where w.claim_code_hash = $1 and w.agent_id is not null`,
    [hashClaimCode(claimCode)],
  );
  return r.rows[0];
}

function assertClaimable(row: WalletRow) {
  if (row.claim_state !== null) throw new ApiError(400, "CLAIM_ALREADY_USED", "this agent has already been claimed");
  if (row.claim_expires_at.getTime() < Date.now())
    throw new ApiError(400, "CLAIM_CODE_EXPIRED", "the claim code has expired");
  if (!row.encrypted_key) throw new ApiError(400, "KEY_UNAVAILABLE", "the agent's key is no longer available");
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
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const exists = await deps.pool.query(`select 1 from ${deps.env.INDEXER_SCHEMA}.agent where id = $1`, [id]);
    if (!exists.rowCount) throw errors.agentNotFound(id);
    const row = await walletByCode(deps, body.claimCode);
    if (!row || Number(row.agent_id) !== id)
      throw errors.notFound("CLAIM_CODE_INVALID", "claim code does not belong to this agent");
    assertClaimable(row);

    const userAddress = getAddress(body.userAddress);
    // Wallets differ in address casing; the message may carry the address as sent or checksummed.
    const candidates = [...new Set([body.userAddress, userAddress])];
    let signed = false;
    for (const written of candidates) {
      signed ||= await deps.chain
        .verifyMessage({ address: userAddress, message: claimMessage(id, written), signature: body.signature as Hex })
        .catch(() => false);
    }
    if (!signed)
      throw errors.unauthorized(
        "INVALID_SIGNATURE",
        `signature is not ${userAddress}'s over "${claimMessage(id, userAddress)}"`,
      );

    // Exactly one request moves the row out of the open state; every other one sees it claimed.
    const won = await deps.pool.query<{ encrypted_key: Buffer }>(
      `update api.agent_wallet set claim_state = 'CLAIMING', claimed_by = $2
        where agent_id = $1 and claim_state is null and encrypted_key is not null and claim_expires_at > now()
        returning encrypted_key`,
      [id, userAddress],
    );
    if (!won.rows[0]) throw new ApiError(400, "CLAIM_ALREADY_USED", "this agent has already been claimed");

    const privateKey = deps.keys.decrypt(won.rows[0].encrypted_key, row.wallet_address);
    let txHash: string;
    try {
      const agentWallet = privateKeyToAccount(privateKey);
      const claimSignature = await agentWallet.signTypedData({
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
      const relayed = await deps.relayer.call(
        "AgentIdentity",
        AgentIdentityAbi,
        "claimTransfer",
        [BigInt(id), userAddress, claimSignature],
        `claim:${id}`,
      );
      txHash = relayed.txHash;
    } catch (error) {
      // Nothing moved on chain: reopen the claim so the user can try again.
      await deps.pool.query("update api.agent_wallet set claim_state = null, claimed_by = null where agent_id = $1", [
        id,
      ]);
      throw error;
    }
    // The key is deleted before it is returned: it leaves the service exactly once.
    await deps.pool.query(
      `update api.agent_wallet set claim_state = 'CLAIMED', encrypted_key = null, claimed_at = now(), claim_tx = $2
        where agent_id = $1`,
      [id, txHash],
    );
    await waitForIndexer(
      `claim of agent ${id}`,
      async () =>
        (await deps.pool.query(`select 1 from ${deps.env.INDEXER_SCHEMA}.agent where id = $1 and claimed`, [id]))
          .rows[0],
      deps.env.INDEXER_WAIT_MS,
    );
    return c.json(
      {
        agentId: id,
        privateKey,
        walletAddress: row.wallet_address,
        ownerAddress: userAddress,
        txHash,
        message:
          "Save this private key now: it controls the agent's wallet and is shown only once. AgentHub has deleted its copy.",
      },
      200,
    );
  });
