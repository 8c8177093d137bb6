// Protocol parameters that governance may change (docs/decisions.md, "Protocol parameters change only through
// governance"): read from the contracts, never assumed. Everything the API checks or shows against the fee rate,
// the minimum stake, the claim timeout or the cover bound takes them from here.
import type { Deployments } from "@agenthub/common";
import {
  AgentHubGovernorAbi,
  AgentHubTimelockAbi,
  InsurancePoolAbi,
  RunEscrowAbi,
  StakeVaultAbi,
} from "@agenthub/common/generated/abis";
import { type Address, type PublicClient, parseAbi } from "viem";
import type { ChainClock } from "./chain-time.ts";

export interface ProtocolParams {
  /** RunEscrow.feeBps: the fee rate of runs funded now. */
  feeBps: bigint;
  /** StakeVault.minStake: the active stake an agent needs to claim runs (locked while it holds one). */
  minStake: bigint;
  /** RunEscrow.claimTimeout: seconds after a claim or revision request before the poster may slash. */
  claimTimeout: bigint;
  /** RunEscrow.maxCoverBps: the highest cover (agreed damages) a run may carry, in basis points of its reward. */
  maxCoverBps: bigint;
  /** The block they were read at. */
  block: bigint;
}

/** Every parameter of the deployment a client needs (GET /api/config), as of one block. */
export interface DeploymentParams extends ProtocolParams {
  /** RunEscrow.treasury: where accrued fees are swept. */
  treasury: Address;
  /** RunEscrow.slashBps: the share of the stake slashed on a timeout or a lost dispute. */
  slashBps: bigint;
  /** RunEscrow.MAX_FEE_BPS: the highest fee governance can set. */
  maxFeeBps: bigint;
  /** StakeVault.withdrawalCooldown: seconds between a stake withdrawal request and the withdrawal. */
  stakeWithdrawalCooldown: bigint;
  /** InsurancePool.withdrawalCooldown and CLAIM_WINDOW (seconds). */
  insuranceWithdrawalCooldown: bigint;
  insuranceClaimWindow: bigint;
  /** Governor (seconds, token base units, percent of supply) and the timelock's delay (seconds). */
  votingDelay: bigint;
  votingPeriod: bigint;
  proposalThreshold: bigint;
  quorumPercent: bigint;
  timelockMinDelay: bigint;
  /** The emergency Safe's owners and threshold (when the deployment has one). */
  emergencySafe: { address: Address; threshold: bigint; owners: readonly Address[] } | null;
}

const SAFE_ABI = parseAbi([
  "function getThreshold() view returns (uint256)",
  "function getOwners() view returns (address[])",
]);

/**
 * The parameters as of the chain's latest block, read once per block (four calls at that block number) and
 * shared by every request until the next block: a governance change is visible from the block that executed it,
 * at most the clock's cache (500 ms) later, without a chain read per request.
 */
export class ProtocolParamsReader {
  private cache: { block: bigint; params: Promise<ProtocolParams> } | undefined;
  private deploymentCache: { block: bigint; params: Promise<DeploymentParams> } | undefined;

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

  /**
   * Everything GET /api/config shows, as of the latest block the clock knows: read again on the first request after
   * each block, so a parameter governance changed shows from the block that executed it (docs/decisions.md).
   */
  async deployment(): Promise<DeploymentParams> {
    const block = await this.clock.blockNumber();
    if (this.deploymentCache && this.deploymentCache.block >= block) return this.deploymentCache.params;
    const params = Promise.all([this.at(block), this.loadDeployment(block)]).then(([core, rest]) => ({
      ...core,
      ...rest,
    }));
    this.deploymentCache = { block, params };
    params.catch(() => {
      if (this.deploymentCache?.params === params) this.deploymentCache = undefined;
    });
    return params;
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
    const [feeBps, minStake, claimTimeout, maxCoverBps] = await Promise.all([
      this.chain.readContract({ ...escrow, functionName: "feeBps" }),
      this.chain.readContract({
        address: StakeVault.address,
        abi: StakeVaultAbi,
        functionName: "minStake",
        blockNumber: block,
      }),
      this.chain.readContract({ ...escrow, functionName: "claimTimeout" }),
      this.chain.readContract({ ...escrow, functionName: "maxCoverBps" }),
    ]);
    return { feeBps, minStake, claimTimeout: BigInt(claimTimeout), maxCoverBps: BigInt(maxCoverBps), block };
  }

  private loadDeployment(block: bigint): Promise<DeploymentOnly> {
    return readDeployment(this.chain, this.deployments, block);
  }
}

type DeploymentOnly = Omit<DeploymentParams, keyof ProtocolParams>;

async function readDeployment(
  chain: PublicClient,
  deployments: Deployments,
  blockNumber: bigint,
): Promise<DeploymentOnly> {
  const { RunEscrow, StakeVault, InsurancePool, AgentHubGovernor, AgentHubTimelock } = deployments.contracts;
  const escrow = { address: RunEscrow.address, abi: RunEscrowAbi, blockNumber } as const;
  const pool = { address: InsurancePool.address, abi: InsurancePoolAbi, blockNumber } as const;
  const governor = { address: AgentHubGovernor.address, abi: AgentHubGovernorAbi, blockNumber } as const;
  const safe = deployments.emergencySafe;
  const [treasury, slashBps, maxFeeBps, stakeCooldown, insuranceCooldown, claimWindow] = await Promise.all([
    chain.readContract({ ...escrow, functionName: "treasury" }),
    chain.readContract({ ...escrow, functionName: "slashBps" }),
    chain.readContract({ ...escrow, functionName: "MAX_FEE_BPS" }),
    chain.readContract({
      address: StakeVault.address,
      abi: StakeVaultAbi,
      functionName: "withdrawalCooldown",
      blockNumber,
    }),
    chain.readContract({ ...pool, functionName: "withdrawalCooldown" }),
    chain.readContract({ ...pool, functionName: "CLAIM_WINDOW" }),
  ]);
  const [votingDelay, votingPeriod, proposalThreshold, quorumPercent, timelockMinDelay] = await Promise.all([
    chain.readContract({ ...governor, functionName: "votingDelay" }),
    chain.readContract({ ...governor, functionName: "votingPeriod" }),
    chain.readContract({ ...governor, functionName: "proposalThreshold" }),
    chain.readContract({ ...governor, functionName: "quorumNumerator" }),
    chain.readContract({
      address: AgentHubTimelock.address,
      abi: AgentHubTimelockAbi,
      functionName: "getMinDelay",
      blockNumber,
    }),
  ]);
  const emergencySafe = safe
    ? await Promise.all([
        chain.readContract({ address: safe, abi: SAFE_ABI, functionName: "getThreshold", blockNumber }),
        chain.readContract({ address: safe, abi: SAFE_ABI, functionName: "getOwners", blockNumber }),
      ]).then(([threshold, owners]) => ({ address: safe, threshold, owners }))
    : null;
  return {
    treasury,
    slashBps,
    maxFeeBps,
    stakeWithdrawalCooldown: BigInt(stakeCooldown),
    insuranceWithdrawalCooldown: BigInt(insuranceCooldown),
    insuranceClaimWindow: BigInt(claimWindow),
    votingDelay,
    votingPeriod,
    proposalThreshold,
    quorumPercent,
    timelockMinDelay,
    emergencySafe,
  };
}

/** The escrow's fee rate (basis points) for runs funded now. */
export async function currentFeeBps(deps: { params: ProtocolParamsReader }): Promise<bigint> {
  return (await deps.params.current()).feeBps;
}
