// On-chain consent to a run action (docs/decisions.md, "Relayed run actions need the party's consent"): the
// relayer only submits RunEscrow's `<action>BySig` with the poster's or the agent token owner's EIP-712
// `RunConsent`, which the escrow verifies. The API checks it first (signer, deadline, nonce, signature, ERC-1271
// included) so a bad one is a clear 4xx and never a relayed revert, and serves what a client signs
// (consentRequest, behind GET /api/runs/:id/consent).
import { AgentIdentityAbi, RunEscrowAbi } from "@agenthub/common/generated/abis";
import { consentNonceKey, type RunConsentAction, runConsentTypedData } from "@agenthub/common/protocol";
import { type Address, getAddress, type Hex, isAddressEqual, zeroHash } from "viem";
import type { Deps } from "../../context.ts";
import { apiError, errors } from "../../errors.ts";
import type { RunRecord } from "../../stores/runs.ts";
import { chainNow } from "./escrow.ts";
import { getRun } from "./get-run.ts";

/** How long a consent served by GET .../consent stays usable (chain time); clients may choose their own. */
const DEFAULT_CONSENT_TTL_SECONDS = 3600n;

/** The party's RunConsent as a request carries it (`signer` defaults to the request message's signer). */
export interface ConsentInput {
  signer?: string;
  nonce: string;
  deadline: number;
  signature: string;
}

export interface ConsentTuple {
  signer: Address;
  nonce: bigint;
  deadline: bigint;
  signature: Hex;
}

const escrowAddress = (deps: Deps) => deps.deployments.contracts.RunEscrow.address;

/** The agent token's owner now (rewards and consents follow the token). */
export async function agentOwnerOnChain(deps: Deps, agentId: number | bigint): Promise<Address> {
  return deps.chain.readContract({
    address: deps.deployments.contracts.AgentIdentity.address,
    abi: AgentIdentityAbi,
    functionName: "ownerOf",
    args: [BigInt(agentId)],
  }) as Promise<Address>;
}

/** Who may consent to `action` on `run` (claiming: `agentId`'s owner). */
async function partiesOf(deps: Deps, run: RunRecord, action: RunConsentAction, agentId?: number): Promise<Address[]> {
  const poster = getAddress(run.poster);
  if (["approve", "requestRevision", "reject", "cancel"].includes(action)) return [poster];
  const agent = action === "claim" ? agentId : run.agentId;
  if (agent === undefined || agent === null) return action === "dispute" ? [poster] : [];
  const owner = await agentOwnerOnChain(deps, agent);
  return action === "dispute" ? [poster, owner] : [owner];
}

function typedData(
  deps: Deps,
  run: RunRecord,
  action: RunConsentAction,
  fields: { agentId?: number; deliverableHash?: Hex; nonce: bigint; deadline: bigint },
) {
  if (run.onchainRunId === null) throw apiError("INVALID_RUN_STATE", `run ${run.id} is not funded yet`);
  const agentId = action === "claim" ? fields.agentId : (run.agentId ?? undefined);
  const deliverableHash = action === "submit" ? fields.deliverableHash : ((run.deliverableHash as Hex) ?? zeroHash);
  // A claim binds the run's terms as indexed from the chain, its cover included: the escrow refuses it for others.
  const terms =
    action === "claim"
      ? {
          poster: getAddress(run.poster),
          reward: run.reward,
          deadline: run.deadline,
          maxRevisions: BigInt(run.maxRevisions),
          cover: run.requiredCoverage,
        }
      : undefined;
  return runConsentTypedData({
    escrow: escrowAddress(deps),
    chainId: deps.chain.chain?.id ?? 84532,
    action,
    runId: run.onchainRunId,
    agentId: agentId === undefined ? 0n : BigInt(agentId),
    deliverableHash: deliverableHash ?? zeroHash,
    terms,
    nonce: fields.nonce,
    deadline: fields.deadline,
  });
}

/**
 * Checks the consent a request carries for `action` on `run` and returns it as RunEscrow takes it. `fallback` is
 * the request message's signer (the default consent signer). For claim pass the agent, for submit the hash.
 */
export async function requireConsent(
  deps: Deps,
  run: RunRecord,
  action: RunConsentAction,
  consent: ConsentInput,
  fallback: Address,
  extra: { agentId?: number; deliverableHash?: Hex } = {},
): Promise<ConsentTuple> {
  const signer = getAddress(consent.signer ?? fallback);
  const parties = await partiesOf(deps, run, action, extra.agentId);
  if (!parties.some((p) => isAddressEqual(p, signer))) {
    throw apiError(
      "CONSENT_SIGNER_MISMATCH",
      `the on-chain consent to ${action} must be signed by ${parties.join(" or ")} (the escrow checks it), not ${signer}`,
    );
  }
  const deadline = BigInt(consent.deadline);
  if (deadline < (await chainNow(deps))) {
    throw apiError("CONSENT_EXPIRED", `the consent expired at ${deadline} (chain time)`);
  }
  const nonce = BigInt(consent.nonce);
  const key = nonce >> 64n;
  if (key >= 1n << 192n) throw errors.validation("consent.nonce is not a uint256 keyed nonce");
  const next = await deps.chain.readContract({
    address: escrowAddress(deps),
    abi: RunEscrowAbi,
    functionName: "nonces",
    args: [signer, key],
  });
  if (nonce !== next) {
    throw apiError(
      "CONSENT_NONCE_USED",
      `consent.nonce ${nonce} is not ${signer}'s next nonce of key ${key} (${next}); sign again`,
    );
  }
  const signature = consent.signature as Hex;
  const valid = await deps.chain.verifyTypedData({
    address: signer,
    signature,
    ...typedData(deps, run, action, { ...extra, nonce, deadline }),
  });
  if (!valid) {
    throw apiError(
      "INVALID_CONSENT",
      `the consent is not ${signer}'s signature of RunConsent(${action}) for this run, agent, deliverable and terms (GET /api/runs/${run.id}/consent shows what to sign)`,
      { alt: true },
    );
  }
  return { signer, nonce, deadline, signature };
}

export interface ConsentRequestParameters {
  runId: number;
  action: RunConsentAction;
  signer: Address;
  agentId?: number;
  deliverableHash?: Hex;
}

export interface ConsentRequestReturnType {
  action: RunConsentAction;
  signer: Address;
  parties: Address[];
  nonce: bigint;
  deadline: bigint;
  typedData: ReturnType<typeof typedData>;
}

/** What `signer` signs for `action` on the run: its next nonce of the run's key and a deadline an hour away. */
export async function consentRequest(deps: Deps, p: ConsentRequestParameters): Promise<ConsentRequestReturnType> {
  const run = await getRun(deps, p.runId);
  if (p.action === "claim" && p.agentId === undefined) throw errors.validation("agentId is required for claim");
  if (p.action === "submit" && p.deliverableHash === undefined) {
    throw errors.validation("deliverableHash is required for submit");
  }
  if (run.onchainRunId === null) throw apiError("INVALID_RUN_STATE", `run ${run.id} is not funded yet`);
  const signer = getAddress(p.signer);
  const nonce = await deps.chain.readContract({
    address: escrowAddress(deps),
    abi: RunEscrowAbi,
    functionName: "nonces",
    args: [signer, consentNonceKey(run.onchainRunId)],
  });
  const deadline = (await chainNow(deps)) + DEFAULT_CONSENT_TTL_SECONDS;
  const typed = typedData(deps, run, p.action, {
    agentId: p.agentId,
    deliverableHash: p.deliverableHash,
    nonce,
    deadline,
  });
  return {
    action: p.action,
    signer,
    parties: await partiesOf(deps, run, p.action, p.agentId),
    nonce,
    deadline,
    typedData: typed,
  };
}
