// Contract values that never change after deployment (the governance token's symbol), read once per process.
import type { Deployments } from "@agenthub/common";
import { AgentHubTokenAbi } from "@agenthub/common/generated/abis";
import type { PublicClient } from "viem";

export class ConstantReads {
  private symbol: Promise<string> | undefined;

  constructor(
    private readonly chain: PublicClient,
    private readonly deployments: Deployments,
  ) {}

  /** AgentHubToken.symbol(). */
  tokenSymbol(): Promise<string> {
    this.symbol ??= this.chain
      .readContract({
        address: this.deployments.contracts.AgentHubToken.address,
        abi: AgentHubTokenAbi,
        functionName: "symbol",
      })
      .catch((error) => {
        this.symbol = undefined; // a failed read is tried again next time
        throw error;
      });
    return this.symbol;
  }
}
