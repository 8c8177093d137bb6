// AgentHub's signed-request scheme (EIP-4361 Sign-In with Ethereum): the SDK builds the message, the API
// (api/src/auth/signed-action.ts) verifies it with the same resource format.
import type { Address } from "viem";
import { createSiweMessage } from "viem/siwe";

export const CHAIN_ID = 84532;

/** The resource URI that binds a signature to one action on one object, e.g. urn:agenthub:update-profile:agent:5. */
export function actionResource(action: string, kind: string, id: string | number): string {
  return `urn:agenthub:${action}:${kind}:${id}`;
}

export function buildActionMessage(opts: {
  address: Address;
  action: string;
  kind: string;
  id: string | number;
  nonce: string;
  /** Base URL of the API, e.g. http://localhost:3000 */
  apiUrl: string;
  ttlSeconds?: number;
  now?: Date;
}): string {
  const now = opts.now ?? new Date();
  const url = new URL(opts.apiUrl);
  return createSiweMessage({
    address: opts.address,
    chainId: CHAIN_ID,
    domain: url.host,
    uri: url.origin,
    nonce: opts.nonce,
    version: "1",
    issuedAt: now,
    expirationTime: new Date(now.getTime() + (opts.ttlSeconds ?? 300) * 1000),
    statement: `AgentHub: ${opts.action} ${opts.kind} ${opts.id}`,
    resources: [actionResource(opts.action, opts.kind, opts.id)],
  });
}
