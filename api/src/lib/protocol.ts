// Protocol parameters that governance may change (docs/decisions.md, "Protocol parameters change only through
// governance"): read from the contracts, never assumed. Everything the API checks or shows against the fee rate,
// the minimum stake or the claim timeout takes them from here.
import type { Deployments } from "@agenthub/common";
import { RunEscrowAbi, StakeVaultAbi } from "@agenthub/common/generated/abis";
import type { PublicClient } from "viem";
import type { ChainClock } from "./chain-time.ts";

export interface ProtocolParams {
  /** RunEscrow.feeBps: the fee rate of runs funded now. */
  feeBps: bigint;
  /** StakeVault.minStake: the active stake an agent needs to claim runs (locked while it holds one). */
  minStake: bigint;
  /** RunEscrow.claimTimeout: seconds after a claim or revision request before the poster may slash. */
  claimTimeout: bigint;
  /** The block they were read at. */
  block: bigint;
}

/**
 * The parameters as of the chain's latest block, read once per block (three calls at that block number) and
 * shared by every request until the next block: a governance change is visible from the block that executed it,
 * at most the clock's cache (500 ms) later, without a chain read per request.
 */
export class ProtocolParamsReader {
  private cache: { block: bigint; params: Promise<ProtocolParams> } | undefined;

  constructor(
    private readonly chain: PublicClient,
    private readonly deployments: Deployments,
    private readonly clock: ChainClock,
  ) {}

  /** As of the latest block the clock knows (for answers and display). */
  async current(): Promise<ProtocolParams> {
    return this.at(await this.clock.blockNumber());
  }

  /** As of the latest block now (checks right before a write the chain will judge). */
  async fresh(): Promise<ProtocolParams> {
    await this.clock.fresh();
    return this.at(await this.clock.blockNumber());
  }

  private at(block: bigint): Promise<ProtocolParams> {
    if (this.cache && this.cache.block >= block) return this.cache.params;
    const params = this.load(block);
    this.cache = { block, params };
    // A failed read is not kept: the next request tries again.
    params.catch(() => {
      if (this.cache?.params === params) this.cache = undefined;
    });
    return params;
  }

  private async load(block: bigint): Promise<ProtocolParams> {
    const { RunEscrow, StakeVault } = this.deployments.contracts;
    const escrow = { address: RunEscrow.address, abi: RunEscrowAbi, blockNumber: block } as const;
    const [feeBps, minStake, claimTimeout] = await Promise.all([
      this.chain.readContract({ ...escrow, functionName: "feeBps" }),
      this.chain.readContract({
        address: StakeVault.address,
        abi: StakeVaultAbi,
        functionName: "minStake",
        blockNumber: block,
      }),
      this.chain.readContract({ ...escrow, functionName: "claimTimeout" }),
    ]);
    return { feeBps, minStake, claimTimeout: BigInt(claimTimeout), block };
  }
}

/** The escrow's fee rate (basis points) for runs funded now. */
export async function currentFeeBps(deps: { params: ProtocolParamsReader }): Promise<bigint> {
  return (await deps.params.current()).feeBps;
}
