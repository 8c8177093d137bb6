// Server side of the signed-request scheme: a SIWE message bound to chain, domain, action, resource, a
// single-use nonce and an expiry; EOA, ERC-1271 and ERC-6492 signers are all verified by viem, and a canonical
// SimpleAccount (no ERC-1271) by its owner's signature.
import { randomBytes } from "node:crypto";
import { actionResource, CHAIN_ID } from "@agenthub/common/protocol";
import type { Address, Hex } from "viem";
import { parseSiweMessage } from "viem/siwe";
import type { Deps } from "../context.ts";
import { apiError } from "../errors.ts";
import { consumeNonce, insertNonce } from "../stores/auth.ts";

const NONCE_TTL_SECONDS = 600;
const MAX_MESSAGE_TTL_SECONDS = 3600;

export async function issueNonce(deps: Deps): Promise<{ nonce: string; expiresAt: string }> {
  const nonce = randomBytes(16).toString("hex");
  const expiresAt = await insertNonce(deps, nonce, NONCE_TTL_SECONDS);
  return { nonce, expiresAt: expiresAt.toISOString() };
}

const invalid = (message: string) => apiError("INVALID_SIGNATURE", message);

/**
 * A canonical SimpleAccount (ERC-4337 v0.8) has no ERC-1271: its owner's key signs for it, as it signs its
 * UserOperations. Any other contract must answer ERC-1271 itself.
 */
async function signedByAccountOwner(
  deps: Deps,
  account: Address,
  input: { message: string; signature: string },
): Promise<boolean> {
  const owner = await deps.accountCode?.simpleAccountOwner(account).catch(() => undefined);
  if (!owner) return false;
  return deps.chain
    .verifyMessage({ address: owner, message: input.message, signature: input.signature as Hex })
    .catch(() => false);
}

/**
 * Verifies `message`/`signature` authorise `action` on (`kind`, `id`) and consumes the nonce.
 * Returns the signer. Any failure is 401 INVALID_SIGNATURE with the reason; nothing is consumed on failure.
 */
export async function verifySignedAction(
  deps: Deps,
  input: { message: string; signature: string },
  expected: { action: string; kind: string; id: string | number },
): Promise<Address> {
  const fields = parseSiweMessage(input.message);
  if (!fields.address || !fields.nonce || !fields.domain || !fields.chainId)
    throw invalid("not a Sign-In with Ethereum message");
  if (fields.chainId !== CHAIN_ID) throw invalid(`message is for chain ${fields.chainId}, expected ${CHAIN_ID}`);
  const publicUrl = new URL(deps.env.PUBLIC_URL);
  if (fields.domain !== publicUrl.host) throw invalid(`message domain ${fields.domain} is not ${publicUrl.host}`);
  const now = Date.now();
  if (!fields.expirationTime) throw invalid("message needs an expiration time");
  if (fields.expirationTime.getTime() <= now) throw invalid("message has expired");
  if (fields.expirationTime.getTime() - now > MAX_MESSAGE_TTL_SECONDS * 1000)
    throw invalid("expiration more than 1 hour ahead");
  if (fields.notBefore && fields.notBefore.getTime() > now) throw invalid("message not valid yet");
  const resource = actionResource(expected.action, expected.kind, expected.id);
  if (!fields.resources?.includes(resource)) throw invalid(`message does not authorise ${resource}`);

  const valid =
    (await deps.chain
      .verifySiweMessage({ message: input.message, signature: input.signature as Hex, domain: publicUrl.host })
      .catch(() => false)) || (await signedByAccountOwner(deps, fields.address, input));
  if (!valid) throw invalid("signature does not match the message's address");

  if (!(await consumeNonce(deps, fields.nonce, fields.address)))
    throw invalid("nonce unknown, expired or already used");
  return fields.address;
}
