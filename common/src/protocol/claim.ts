// The spec's claim message (EIP-191 personal_sign), signed by the address that receives the agent's identity token.
import type { Address } from "viem";

export function claimMessage(agentId: number | bigint, userAddress: Address): string {
  return `I claim agent ${agentId} to address ${userAddress}`;
}
