// Gasless registration: a generated wallet (key sealed at rest), a one-time claim code, and the identity token
// minted by the relayer. No lock is held across the mint and no pooled connection is held while waiting, so
// registrations run in parallel; the token id comes from the mint's own event.
//
// Nothing is lost on a failure: the wallet row (key, claim code hash, metadata URI) is committed before the mint;
// a definitive refusal removes it again; an unknown outcome (timeout) leaves it for a retry with the same
// Idempotency-Key (which resumes the same mint) or for the reconciler, which adopts the token once it is indexed.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { RelayerCallError } from "@agenthub/relayer/client";
import type pg from "pg";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Deps } from "../../context.ts";
import { withTransaction } from "../../db/transaction.ts";
import { type ProfileInput, profileOfRegistrationFile, registrationFile } from "../../domain/registration-file.ts";
import { apiError } from "../../errors.ts";
import { assertSameRequest, type IdempotencyRecord, requestHash } from "../../lib/idempotency.ts";
import type { Minted } from "../../mints/mint-batcher.ts";
import {
  bindMintedWallet,
  forgetUnmintedWallet,
  insertPendingWallet,
  mintState,
  orphanedMints,
} from "../../stores/agent-wallets.ts";
import { findIdempotent, recordIdempotent } from "../../stores/idempotency.ts";
import { insertInitialProfile } from "../../stores/profiles.ts";
import { queueOrgEvents } from "../../stores/webhook-outbox.ts";

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
  const lease = randomUUID();
  const identity = deps.deployments.contracts.AgentIdentity.address;
  const file = registrationFile(profile, identity, deps.deployments.chainId);
  let stored: { cid: string; uri: string };
  try {
    // One short transaction: registration file, wallet row, idempotency record and the rate-limit count commit
    // together (a refused or losing request leaves nothing behind); no other connection is awaited inside.
    stored = await withTransaction(deps.pool, async (client) => {
      await opts.beforeInsert?.(client);
      const put = await deps.ipfs.putJson(file, client);
      await insertPendingWallet(client, {
        wallet,
        encryptedKey: deps.keys.encrypt(privateKey, wallet),
        claimCodeHash: hashClaimCode(claimCode),
        claimTtlDays: CLAIM_CODE_TTL_DAYS,
        ip: opts.ip,
        orgId: opts.orgId ?? null,
        mintUri: put.uri,
        mintLease: lease,
        mintLeaseSeconds: deps.mints.leaseSeconds,
      });
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
      return put;
    });
  } catch (error) {
    if (!(error instanceof KeyTakenMeanwhile)) throw error;
    // A parallel request with the same key won: answer what it answers.
    const earlier = await findIdempotent(deps, scope, OPERATION, opts.idempotencyKey!);
    if (!earlier) throw apiError("REQUEST_IN_PROGRESS", "a request with this Idempotency-Key just ended");
    return resumeRegistration(deps, earlier, hash);
  }
  await deps.ipfs.pinStored(stored.cid);
  return mintFor(deps, { wallet, claimCode, uri: stored.uri, lease, file });
}

/** A retry of a registration: the first answer if it was minted, else the same mint resumed. */
async function resumeRegistration(deps: Deps, earlier: IdempotencyRecord, hash: string): Promise<Registered> {
  assertSameRequest(earlier, hash);
  const wallet = earlier.resource!;
  const row = await mintState(deps, wallet);
  if (!row) throw apiError("REQUEST_IN_PROGRESS", "the earlier request with this Idempotency-Key failed");
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
  {
    wallet,
    claimCode,
    uri,
    lease,
    file,
  }: { wallet: string; claimCode: string; uri: string; lease?: string; file?: RegistrationFile },
): Promise<Registered> {
  let minted: Minted;
  try {
    // Minted in a batch with the registrations arriving meanwhile (this attempt holds the wallet's mint lease); a
    // resumed registration gets the transaction its wallet went out in instead of a second mint.
    minted = lease ? await deps.mints.mint({ wallet, uri, lease }) : await deps.mints.resume(wallet, uri);
  } catch (error) {
    if (refusedForGood(error)) {
      await forgetUnmintedWallet(deps, wallet, OPERATION);
    }
    throw error;
  }
  const { agentId, txHash, blockNumber } = minted;
  await adoptMintedAgent(deps, { wallet, agentId, txHash, uri, file });
  // Read-your-writes: the answer waits until the indexer holds the mint's block (GET /api/agents/:id then finds the
  // agent), but at most INDEXER_WAIT_MS: past that it answers anyway, so the claim code is never lost to a slow
  // indexer. Waiting holds no pooled connection.
  await deps.indexer.waitForBlock(BigInt(blockNumber), deps.env.INDEXER_WAIT_MS);
  return { agentId, wallet, claimCode, txHash };
}

/**
 * Binds a minted token to its wallet row and writes the off-chain profile from the registration file it was minted
 * with (`file`: the one this request stored, else read back by its CID). Idempotent (first writer wins), so a
 * resumed request and the reconciler can both call it.
 */
async function adoptMintedAgent(
  deps: Deps,
  {
    wallet,
    agentId,
    txHash,
    uri,
    file,
  }: { wallet: string; agentId: number; txHash: string; uri: string; file?: RegistrationFile },
): Promise<void> {
  const cid = uri.replace(/^ipfs:\/\//, "");
  const profile = profileOfRegistrationFile(file ?? (await readRegistrationFile(deps, cid, wallet)));
  await withTransaction(deps.pool, async (client) => {
    const bound = await bindMintedWallet(client, { wallet, agentId, txHash });
    if (!bound) return;
    await insertInitialProfile(client, agentId, { ...profile, image: profile.image || null }, cid);
    // Queued with the binding (only the call that bound the token gets here), so it is emitted exactly once.
    if (bound.orgId) {
      await queueOrgEvents(client, "agent.registered", [
        { agentId, data: { agentId, name: profile.name, wallet }, dedupeKey: `agent.registered:${agentId}` },
      ]);
    }
  });
}

type RegistrationFile = ReturnType<typeof registrationFile>;

async function readRegistrationFile(deps: Deps, cid: string, wallet: string): Promise<RegistrationFile> {
  const stored = await deps.ipfs.get(cid);
  if (!stored) throw new Error(`registration file ${cid} of wallet ${wallet} is missing`);
  return JSON.parse(stored.content.toString()) as RegistrationFile;
}

/**
 * Registrations whose answer never came (the mint's outcome was unknown and nobody retried): once the indexer holds
 * the token minted to the wallet, bind it, so the agent is complete and claimable with the code its caller got.
 */
export async function adoptOrphanedMints(deps: Deps, olderThanSeconds = 60): Promise<number> {
  const rows = await orphanedMints(deps, olderThanSeconds);
  let adopted = 0;
  for (const row of rows) {
    // One mint that cannot be adopted yet (say, its registration file unreadable) must not hold up the others.
    try {
      await adoptMintedAgent(deps, { wallet: row.wallet, agentId: row.agentId, txHash: row.txHash, uri: row.mintUri });
      adopted++;
    } catch (err) {
      deps.logger.warn({ err, agentId: row.agentId, wallet: row.wallet }, "orphaned mint not adopted; retried later");
    }
  }
  return adopted;
}
