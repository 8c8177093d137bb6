// GET /api/config: the deployment as a client needs it, from one source. Addresses come from the deployment the API
// runs with; every parameter governance can change is read from the chain as of the latest block (deps.params), so
// a remote client (a browser, the SDK or the CLI on another machine) needs nothing but this answer.
import { zeroAddress } from "viem";
import type { Deps } from "../../context.ts";
import { PRICES } from "../../domain/prices.ts";

export async function getConfig(deps: Deps) {
  const { deployments, env } = deps;
  const p = await deps.params.deployment();
  const aa = deployments.accountAbstraction;
  const contract = (name: keyof typeof deployments.contracts) => deployments.contracts[name].address;
  return {
    chainId: deployments.chainId,
    network: deployments.network,
    contracts: Object.fromEntries(Object.entries(deployments.contracts).map(([name, d]) => [name, d.address])),
    usdc: deployments.usdc,
    treasury: p.treasury,
    platformRecipient: env.PLATFORM_RECIPIENT_ADDRESS,
    paymentDomain: {
      name: "AgentHub x402",
      version: "1",
      chainId: deployments.chainId,
      verifyingContract: zeroAddress,
    },
    minimumStake: p.minStake.toString(),
    platformFeeBps: Number(p.feeBps),
    governance: {
      token: contract("AgentHubToken"),
      governor: contract("AgentHubGovernor"),
      timelock: contract("AgentHubTimelock"),
      emergencySafe: p.emergencySafe && {
        address: p.emergencySafe.address,
        threshold: Number(p.emergencySafe.threshold),
        owners: [...p.emergencySafe.owners],
      },
    },
    accountAbstraction: aa
      ? {
          entryPoint: aa.entryPoint,
          simple7702Account: aa.simple7702Account,
          simpleAccountFactory: aa.simpleAccountFactory,
          paymaster: aa.paymaster.address,
          paymasterUrl: new URL("/api/paymaster", env.PUBLIC_URL).toString(),
          bundlerUrl: env.BUNDLER_URL ?? null,
        }
      : null,
    erc8004: deployments.erc8004
      ? {
          identityRegistry: deployments.erc8004.identityRegistry,
          reputationRegistry: deployments.erc8004.reputationRegistry,
          agentRegistry: `eip155:${deployments.chainId}:${deployments.erc8004.identityRegistry}`,
        }
      : null,
    parameters: {
      block: p.block.toString(),
      platformFeeBps: Number(p.feeBps),
      maxPlatformFeeBps: Number(p.maxFeeBps),
      slashBps: Number(p.slashBps),
      maxCoverBps: Number(p.maxCoverBps),
      claimTimeoutSeconds: Number(p.claimTimeout),
      minimumStake: p.minStake.toString(),
      stakeWithdrawalCooldownSeconds: Number(p.stakeWithdrawalCooldown),
      insuranceWithdrawalCooldownSeconds: Number(p.insuranceWithdrawalCooldown),
      insuranceClaimWindowSeconds: Number(p.insuranceClaimWindow),
      votingDelaySeconds: Number(p.votingDelay),
      votingPeriodSeconds: Number(p.votingPeriod),
      proposalThreshold: p.proposalThreshold.toString(),
      quorumPercent: Number(p.quorumPercent),
      timelockMinDelaySeconds: Number(p.timelockMinDelay),
    },
    prices: Object.fromEntries(
      Object.entries(PRICES).map(([path, price]) => [
        path,
        { spec: price.spec.toString(), usdc: price.usdc.toString(), description: price.description },
      ]),
    ),
  };
}
