// Gasless registration: a generated wallet (key sealed at rest), a one-time claim code, and the identity token
// minted by the relayer. No lock is held across the mint and no pooled connection is held while waiting, so
// registrations run in parallel; the token id comes from the mint's own event.
//
// Nothing is lost on a failure: the wallet row (key, claim code hash, metadata URI) is committed before the mint;
// a definitive refusal removes it again; an unknown outcome (timeout) leaves it for a retry with the same
// Idempotency-Key (which resumes the same mint) or for the reconciler, which adopts the token once it is indexed.
import { createHash, randomBytes } from "node:crypto";
import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import { RelayerCallError } from "@agenthub/relayer/client";
import type pg from "pg";
import type { Abi } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Deps } from "../../context.ts";
import { withTransaction } from "../../db/transaction.ts";
import { ApiError } from "../../errors.ts";
import { eventArgs } from "../../lib/events.ts";
import {
  assertSameRequest,
  findIdempotent,
  type IdempotencyRecord,
  recordIdempotent,
  requestHash,
} from "../../lib/idempotency.ts";
import { emitOrgEvent } from "../../webhooks/emit.ts";
import { type ProfileInput, profileOfRegistrationFile, registrationFile } from "./metadata.ts";

export const CLAIM_CODE_TTL_DAYS = 30;
const OPERATION = "register";

export const hashClaimCode = (code: string) => createHash("sha256").update(code).digest("hex");
const claimCodeContext = (wallet: string) => `claim-code:${wallet.toLowerCase()}`;

export interface RegisterOptions {
  ip: string;
  orgId?: string;
  idempotencyKey?: string;
  /**
   * Counts a new registration against its rate limit inside the registration's transaction (so the count commits
   * only with a registration that happens); never called for a replay of an earlier request.
   */
  countAttempt?: (db: pg.PoolClient) => Promise<void>;
  /** Runs in the transaction that inserts the wallet row, before the insert (e.g. an organization's agent quota). */
  beforeInsert?: (client: pg.PoolClient) => Promise<void>;
}

export interface Registered {
  agentId: number;
  wallet: string;
  claimCode: string;
  txHash: string;
}

class KeyTakenMeanwhile extends Error {}

export async function registerAgent(deps: Deps, profile: ProfileInput, opts: RegisterOptions): Promise<Registered> {
  const scope = opts.orgId ? `org:${opts.orgId}` : `ip:${opts.ip}`;
  const hash = requestHash(profile);
  if (opts.idempotencyKey) {
    const earlier = await findIdempotent(deps, scope, OPERATION, opts.idempotencyKey);
    if (earlier) return resumeRegistration(deps, earlier, hash);
  }
  const privateKey = generatePrivateKey();
  const wallet = privateKeyToAccount(privateKey).address;
  const claimCode = randomBytes(24).toString("base64url");
  const identity = deps.deployments.contracts.AgentIdentity.address;
  let stored: { cid: string; uri: string };
  try {
    // One short transaction: registration file, wallet row, idempotency record and the rate-limit count commit
    // together (a refused or losing request leaves nothing behind); no other connection is awaited inside.
    stored = await withTransaction(deps.pool, async (client) => {
      await opts.beforeInsert?.(client);
      const file = await deps.ipfs.putJson(registrationFile(profile, identity, deps.deployments.chainId), client);
      await client.query(
        `insert into api.agent_wallet
           (wallet_address, encrypted_key, claim_code_hash, claim_expires_at, registered_ip, org_id, mint_uri)
         values ($1, $2, $3, now() + make_interval(days => $4), $5, $6, $7)`,
        [
          wallet,
          deps.keys.encrypt(privateKey, wallet),
          hashClaimCode(claimCode),
          CLAIM_CODE_TTL_DAYS,
          opts.ip,
          opts.orgId ?? null,
          file.uri,
        ],
      );
      if (opts.idempotencyKey) {
        const recorded = await recordIdempotent(client, {
          scope,
          operation: OPERATION,
          key: opts.idempotencyKey,
          requestHash: hash,
          resource: wallet,
          sealedSecret: deps.keys.seal(Buffer.from(claimCode), claimCodeContext(wallet)),
        });
        if (!recorded) throw new KeyTakenMeanwhile();
      }
      await opts.countAttempt?.(client);
      return file;
    });
  } catch (error) {
    if (!(error instanceof KeyTakenMeanwhile)) throw error;
    // A parallel request with the same key won: answer what it answers.
    const earlier = await findIdempotent(deps, scope, OPERATION, opts.idempotencyKey!);
    if (!earlier) throw new ApiError(409, "REQUEST_IN_PROGRESS", "a request with this Idempotency-Key just ended");
    return resumeRegistration(deps, earlier, hash);
  }
  await deps.ipfs.pinStored(stored.cid);
  return mintFor(deps, { wallet, claimCode, uri: stored.uri });
}

/** A retry of a registration: the first answer if it was minted, else the same mint resumed. */
async function resumeRegistration(deps: Deps, earlier: IdempotencyRecord, hash: string): Promise<Registered> {
  assertSameRequest(earlier, hash);
  const wallet = earlier.resource!;
  const { rows } = await deps.pool.query<{ agent_id: string | null; mint_tx: string | null; mint_uri: string }>(
    "select agent_id, mint_tx, mint_uri from api.agent_wallet where wallet_address = $1",
    [wallet],
  );
  const row = rows[0];
  if (!row) throw new ApiError(409, "REQUEST_IN_PROGRESS", "the earlier request with this Idempotency-Key failed");
  const claimCode = deps.keys.open(earlier.sealedSecret!, claimCodeContext(wallet)).toString();
  if (row.agent_id !== null && row.mint_tx !== null) {
    return { agentId: Number(row.agent_id), wallet, claimCode, txHash: row.mint_tx };
  }
  return mintFor(deps, { wallet, claimCode, uri: row.mint_uri });
}

/** Reverts and refusals end the attempt for good; timeouts and outages leave the outcome open. */
function refusedForGood(error: unknown): boolean {
  return error instanceof RelayerCallError && (error.code === "TX_REVERTED" || error.code === "NOT_ALLOWED");
}

async function mintFor(
  deps: Deps,
  { wallet, claimCode, uri }: { wallet: string; claimCode: string; uri: string },
): Promise<Registered> {
  const to = wallet as `0x${string}`;
  let minted: Awaited<ReturnType<typeof deps.relayer.call>>;
  try {
    // The idempotency key makes a resumed mint return the first transaction instead of minting twice.
    minted = await deps.relayer.call("AgentIdentity", AgentIdentityAbi, "mint", [to, uri], `register:${wallet}`);
  } catch (error) {
    if (refusedForGood(error)) {
      await withTransaction(deps.pool, async (client) => {
        await client.query("delete from api.idempotency_key where operation = $1 and resource = $2", [
          OPERATION,
          wallet,
        ]);
        await client.query("delete from api.agent_wallet where wallet_address = $1 and agent_id is null", [wallet]);
      });
    }
    throw error;
  }
  const [registered] = eventArgs<{ agentId: bigint }>(AgentIdentityAbi as Abi, minted.logs, "AgentRegistered");
  const agentId = Number(registered!.agentId);
  await adoptMintedAgent(deps, { wallet, agentId, txHash: minted.txHash, uri });
  // Read-your-writes for the common case; the answer (with the only copy of the claim code) never waits on it.
  await deps.indexer.waitForBlock(BigInt(minted.blockNumber), deps.env.INDEXER_WAIT_MS);
  return { agentId, wallet, claimCode, txHash: minted.txHash };
}

/**
 * Binds a minted token to its wallet row and writes the off-chain profile from the registration file it was minted
 * with. Idempotent (first writer wins), so a resumed request and the reconciler can both call it.
 */
async function adoptMintedAgent(
  deps: Deps,
  { wallet, agentId, txHash, uri }: { wallet: string; agentId: number; txHash: string; uri: string },
): Promise<void> {
  const cid = uri.replace(/^ipfs:\/\//, "");
  const stored = await deps.ipfs.get(cid);
  if (!stored) throw new Error(`registration file ${cid} of wallet ${wallet} is missing`);
  const profile = profileOfRegistrationFile(JSON.parse(stored.content.toString()));
  const adopted = await withTransaction(deps.pool, async (client) => {
    const bound = await client.query<{ org_id: string | null }>(
      `update api.agent_wallet set agent_id = $2, mint_tx = $3 where wallet_address = $1 and agent_id is null
       returning org_id`,
      [wallet, agentId, txHash],
    );
    if (bound.rowCount === 0) return undefined;
    await client.query(
      `insert into api.agent_profile
         (agent_id, name, description, capabilities, programming_langs, domains, tools, endpoints, image, metadata_cid)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict (agent_id) do nothing`,
      [
        agentId,
        profile.name,
        profile.description,
        profile.capabilities,
        profile.programmingLangs,
        profile.domains,
        profile.tools,
        JSON.stringify(profile.endpoints),
        profile.image || null,
        cid,
      ],
    );
    return { orgId: bound.rows[0]!.org_id };
  });
  // Emitted once: only the call that bound the token gets here.
  if (adopted?.orgId) await emitOrgEvent(deps, "agent.registered", agentId, { agentId, name: profile.name, wallet });
}

/**
 * Registrations whose answer never came (the mint's outcome was unknown and nobody retried): once the indexer holds
 * the token minted to the wallet, bind it, so the agent is complete and claimable with the code its caller got.
 */
export async function adoptOrphanedMints(deps: Deps, olderThanSeconds = 60): Promise<number> {
  const { rows } = await deps.pool.query<{ wallet_address: string; mint_uri: string; id: string; tx: string }>(
    `select w.wallet_address, w.mint_uri, a.id::text, a.registered_tx as tx
       from api.agent_wallet w
       join ${deps.env.INDEXER_SCHEMA}.agent a on a.wallet = lower(w.wallet_address)
      where w.agent_id is null and w.mint_uri is not null
        and w.created_at < now() - make_interval(secs => $1)
      limit 500`,
    [olderThanSeconds],
  );
  for (const row of rows) {
    await adoptMintedAgent(deps, {
      wallet: row.wallet_address,
      agentId: Number(row.id),
      txHash: row.tx,
      uri: row.mint_uri,
    });
  }
  return rows.length;
}
