// The poster's USDC, checked before a permit is relayed (a clear 400 instead of a relayed revert).
import { TestUSDCAbi } from "@agenthub/common/generated/abis";
import type { Address } from "viem";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";

export async function requireUsdc(deps: Deps, who: Address, amount: bigint): Promise<void> {
  const held = await deps.chain.readContract({
    address: deps.deployments.usdc.address,
    abi: TestUSDCAbi,
    functionName: "balanceOf",
    args: [who],
  });
  if (held < amount) throw apiError("INSUFFICIENT_FUNDS", `${who} holds ${held} USDC base units, not ${amount}`);
}
