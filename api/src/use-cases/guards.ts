// Checks many use cases start with, written once: the agent exists, the request is signed by who may act.
import { type Address, isAddressEqual } from "viem";
import { verifySignedAction } from "../auth/signed-action.ts";
import type { Deps } from "../context.ts";
import { type ApiError, errors } from "../errors.ts";
import { chainClock } from "../lib/chain-time.ts";
import { type AgentRecord, findAgent, statusOf } from "../stores/agents.ts";
import { agentFacts } from "../stores/verifications.ts";

/** What a read of agent `id` found, or 404 AGENT_NOT_FOUND (for reads of their own shape, e.g. the agent page). */
export function foundAgent<T>(found: T | undefined, id: number | bigint | string): T {
  if (!found) throw errors.agentNotFound(id.toString());
  return found;
}

/** The agent `id`, or 404 AGENT_NOT_FOUND. */
export async function requireAgent(deps: Pick<Deps, "pool" | "views">, id: number | bigint): Promise<AgentRecord> {
  return foundAgent(await findAgent(deps, id), id);
}

/**
 * The agent `id` (404 when unknown) with what its trust state is judged by: the chain's time and the vault's
 * minimum stake (a governance parameter), and the status they give.
 */
export async function requireAgentAt(deps: Deps, id: number) {
  const [agent, now, { minStake }] = await Promise.all([
    requireAgent(deps, id),
    chainClock(deps).now(),
    deps.params.current(),
  ]);
  return { agent, now, minStake, status: statusOf(agent, now, minStake) };
}

/** The agent's on-chain facts (wallet, owner, registration), or 404 AGENT_NOT_FOUND: a lighter read than requireAgent. */
export async function requireAgentFacts(deps: Deps, id: number | string) {
  return foundAgent(await agentFacts(deps, Number(id)), id);
}

/**
 * Verifies the signed request (SIWE message for `action` on (`kind`, `id`), nonce consumed) and that its signer is
 * one of `allowed`; otherwise throws `refused()` (401 INVALID_SIGNATURE for a bad signature comes first).
 */
export async function verifySignedBy(
  deps: Deps,
  signed: { message: string; signature: string },
  expected: { action: string; kind: string; id: string | number },
  allowed: readonly (Address | string)[],
  refused: (signer: Address) => ApiError,
): Promise<Address> {
  const signer = await verifySignedAction(deps, signed, expected);
  if (!allowed.some((a) => isAddressEqual(signer, a as Address))) throw refused(signer);
  return signer;
}
