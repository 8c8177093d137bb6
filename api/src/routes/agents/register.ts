import { createHash, randomBytes } from "node:crypto";
import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import { createRoute, z } from "@hono/zod-openapi";
import type pg from "pg";
import type { Abi } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Deps } from "../../context.ts";
import { clientIp } from "../../lib/client-ip.ts";
import { eventArgs } from "../../lib/events.ts";
import { router } from "../../lib/openapi.ts";
import { LIMITS, rateLimit } from "../../lib/rate-limit.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import { emitOrgEvent } from "../../webhooks/emit.ts";
import { reserveOrgAgentSlot } from "../organizations/quota.ts";
import { type ProfileInput, registrationFile } from "./metadata.ts";
import { registerBody } from "./schemas.ts";

export const CLAIM_CODE_TTL_DAYS = 30;

export const hashClaimCode = (code: string) => createHash("sha256").update(code).digest("hex");

export const registerResponse = z.object({
  agentId: z.number(),
  claimCode: z.string(),
  claimURL: z.string(),
  walletAddress: z.string(),
  txHash: z.string(),
  status: z.literal("UNVERIFIED"),
  message: z.string(),
  instructions: z.string(),
});

const registerLimit = rateLimit("register", LIMITS.registration);

const route = createRoute({
  method: "post",
  path: "/api/agents/register",
  tags: ["agents"],
  summary: "Gasless registration: generates a wallet, mints the identity token, returns a one-time claim code",
  // With an organization key the plan's rate limit and agent quota apply instead of the per-IP registration limit.
  middleware: [(c, next) => (c.get("org") ? next() : registerLimit(c, next))] as const,
  request: { body: jsonBody(registerBody) },
  responses: { 201: json(registerResponse, "Registered"), ...errorResponses(400, 401, 403, 429, 503) },
});

export interface RegisterOptions {
  ip: string;
  orgId?: string;
  /** Runs in the transaction that inserts the wallet row, before the insert (e.g. an organization's agent quota). */
  beforeInsert?: (client: pg.PoolClient) => Promise<void>;
}

/** Writes the profile and its registration file, then mints; the caller holds the mint lock. */
export async function registerAgent(deps: Deps, profile: ProfileInput, opts: RegisterOptions) {
  const privateKey = generatePrivateKey();
  const wallet = privateKeyToAccount(privateKey).address;
  const claimCode = randomBytes(24).toString("base64url");
  // The wallet row (with its encrypted key) is committed before the mint, so a crash cannot orphan a token's key.
  const insert = await deps.pool.connect();
  try {
    await insert.query("begin");
    await opts.beforeInsert?.(insert);
    await insert.query(
      `insert into api.agent_wallet (wallet_address, encrypted_key, claim_code_hash, claim_expires_at, registered_ip, org_id)
       values ($1, $2, $3, now() + make_interval(days => $4), $5, $6)`,
      [
        wallet,
        deps.keys.encrypt(privateKey, wallet),
        hashClaimCode(claimCode),
        CLAIM_CODE_TTL_DAYS,
        opts.ip,
        opts.orgId ?? null,
      ],
    );
    await insert.query("commit");
  } catch (error) {
    await insert.query("rollback").catch(() => {});
    throw error;
  } finally {
    insert.release();
  }

  const identity = deps.deployments.contracts.AgentIdentity.address;
  const chainId = deps.deployments.chainId;
  const client = await deps.pool.connect();
  let agentId: number;
  let txHash: string;
  let cid: string;
  try {
    // Mints are serialised across API processes so the registration file can name the id the mint will get.
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock(hashtext('agenthub.mint'))");
    const predicted =
      Number(await deps.chain.readContract({ address: identity, abi: AgentIdentityAbi, functionName: "totalAgents" })) +
      1;
    let stored = await deps.ipfs.putJson(registrationFile(profile, predicted, identity, chainId));
    let minted: Awaited<ReturnType<typeof deps.relayer.call>>;
    try {
      minted = await deps.relayer.call(
        "AgentIdentity",
        AgentIdentityAbi,
        "mint",
        [wallet, stored.uri],
        `register:${wallet}`,
      );
    } catch (error) {
      await deps.pool.query("delete from api.agent_wallet where wallet_address = $1 and agent_id is null", [wallet]);
      throw error;
    }
    const [registered] = eventArgs<{ agentId: bigint }>(AgentIdentityAbi as Abi, minted.logs, "AgentRegistered");
    agentId = Number(registered!.agentId);
    txHash = minted.txHash;
    if (agentId !== predicted) {
      // Someone minted outside this lock (e.g. another deployment's relayer): publish the file with the real id.
      stored = await deps.ipfs.putJson(registrationFile(profile, agentId, identity, chainId));
      await deps.relayer.call(
        "AgentIdentity",
        AgentIdentityAbi,
        "setTokenURI",
        [BigInt(agentId), stored.uri],
        `register-fix:${wallet}`,
      );
    }
    cid = stored.cid;
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => {});
    throw error;
  } finally {
    client.release();
  }

  await deps.pool.query("update api.agent_wallet set agent_id = $2, mint_tx = $3 where wallet_address = $1", [
    wallet,
    agentId,
    txHash,
  ]);
  await deps.pool.query(
    `insert into api.agent_profile (agent_id, name, description, capabilities, programming_langs, domains, tools, endpoints, image, metadata_cid)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      agentId,
      profile.name,
      profile.description ?? "",
      profile.capabilities ?? [],
      profile.programmingLangs ?? [],
      profile.domains ?? [],
      profile.tools ?? [],
      JSON.stringify(profile.endpoints ?? {}),
      profile.image ?? null,
      cid,
    ],
  );
  await waitForIndexer(
    `agent ${agentId}`,
    async () =>
      (await deps.pool.query(`select 1 from ${deps.env.INDEXER_SCHEMA}.agent where id = $1`, [agentId])).rows[0],
    deps.env.INDEXER_WAIT_MS,
  );
  if (opts.orgId) await emitOrgEvent(deps, "agent.registered", agentId, { agentId, name: profile.name, wallet });
  return { agentId, wallet, claimCode, txHash };
}

/** The registration answer (also used by POST /api/organizations/{id}/agents). */
export function registrationAnswer(
  deps: Deps,
  { agentId, wallet, claimCode, txHash }: { agentId: number; wallet: string; claimCode: string; txHash: string },
): z.infer<typeof registerResponse> {
  const claimURL = `${deps.env.PUBLIC_URL}/claim/${claimCode}`;
  return {
    agentId,
    claimCode,
    claimURL,
    walletAddress: wallet,
    txHash,
    status: "UNVERIFIED" as const,
    message: `Agent ${agentId} registered. Its identity token is held by the generated wallet ${wallet} until claimed.`,
    instructions: `Open ${claimURL} (or POST /api/agents/${agentId}/claim with claimCode, userAddress and an EIP-191 signature of "I claim agent ${agentId} to address <userAddress>") within ${CLAIM_CODE_TTL_DAYS} days to receive the wallet's private key once and move the token to your address. The claim code is shown only now.`,
  };
}

export const registerRoutes = router().openapi(route, async (c) => {
  const deps = c.get("deps");
  const body = c.req.valid("json");
  const org = c.get("org");
  const registered = await registerAgent(deps, body, {
    ip: clientIp(c, deps.env.TRUST_PROXY),
    ...(org ? { orgId: org.id, beforeInsert: (client) => reserveOrgAgentSlot(client, org.id) } : {}),
  });
  return c.json(registrationAnswer(deps, registered), 201);
});
