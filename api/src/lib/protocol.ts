// Protocol parameters that governance may change (docs/decisions.md, "Protocol parameters change only through
// governance"): read from the contracts, never assumed.
import { RunEscrowAbi } from "@agenthub/common/generated/abis";
import type { Deps } from "../context.ts";

/** The escrow's fee rate (basis points) for runs funded now. */
export async function currentFeeBps(deps: Deps): Promise<bigint> {
  return deps.chain.readContract({
    address: deps.deployments.contracts.RunEscrow.address,
    abi: RunEscrowAbi,
    functionName: "feeBps",
  });
}
