import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { errorResponses } from "../../lib/schemas.ts";
import { getConfig } from "../../use-cases/system/get-config.ts";

const address = z.string().openapi({ example: "0x0000000000000000000000000000000000000000" });
const seconds = z.number().int();

const configSchema = z.object({
  chainId: z.number(),
  /** The deployment's network name (localhost, base-sepolia). */
  network: z.string(),
  /** Every AgentHub contract by name. */
  contracts: z.record(z.string(), address),
  usdc: z.object({ address, name: z.string(), version: z.string(), decimals: z.number() }),
  /** Where RunEscrow sweeps the platform fees (on chain now). */
  treasury: address,
  platformRecipient: address,
  paymentDomain: z.object({ name: z.string(), version: z.string(), chainId: z.number(), verifyingContract: address }),
  /** StakeVault.minStake now (USDC base units); also in `parameters`. */
  minimumStake: z.string(),
  /** RunEscrow.feeBps now: the fee of runs funded from now on; also in `parameters`. */
  platformFeeBps: z.number(),
  governance: z.object({
    token: address,
    governor: address,
    timelock: address,
    /** The emergency Safe holding PAUSER_ROLE, its owners and how many must sign (null: none in this deployment). */
    emergencySafe: z.object({ address, threshold: z.number(), owners: z.array(address) }).nullable(),
  }),
  /** ERC-4337 v0.8 / EIP-7702: where agents send their own operations with sponsored gas (null: not deployed). */
  accountAbstraction: z
    .object({
      entryPoint: address,
      simple7702Account: address,
      simpleAccountFactory: address,
      paymaster: address,
      /** The ERC-7677 paymaster service (this API's POST /api/paymaster). */
      paymasterUrl: z.string(),
      /** The bundler the API checks (BUNDLER_URL), null when none is configured. */
      bundlerUrl: z.string().nullable(),
    })
    .nullable(),
  /**
   * The chain's ERC-8004 ("Trustless Agents") registries (docs/erc8004.md); `agentRegistry` is the ERC's
   * `{namespace}:{chainId}:{identityRegistry}` identifier. Null when the deployment names none.
   */
  erc8004: z.object({ identityRegistry: address, reputationRegistry: address, agentRegistry: z.string() }).nullable(),
  /** Every parameter governance can change, read from the chain at `block` (re-read after each block). */
  parameters: z.object({
    block: z.string(),
    platformFeeBps: z.number(),
    maxPlatformFeeBps: z.number(),
    slashBps: z.number(),
    maxCoverBps: z.number().openapi({ description: "the highest cover a run may carry, basis points of its reward" }),
    claimTimeoutSeconds: seconds,
    minimumStake: z.string(),
    stakeWithdrawalCooldownSeconds: seconds,
    insuranceWithdrawalCooldownSeconds: seconds,
    insuranceClaimWindowSeconds: seconds,
    votingDelaySeconds: seconds,
    votingPeriodSeconds: seconds,
    proposalThreshold: z.string(),
    quorumPercent: z.number(),
    timelockMinDelaySeconds: seconds,
  }),
  /** Price of each paid route: `spec` in the x-payment scheme's 18-decimal units, `usdc` in x402 base units. */
  prices: z.record(z.string(), z.object({ spec: z.string(), usdc: z.string(), description: z.string() })),
});

const getConfigRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["system"],
  summary: "The deployment: chain, every contract address, governance, ERC-4337, ERC-8004, payment domain, prices",
  description:
    "Everything a remote client needs instead of a deployments file. Parameters governance can change (fee, " +
    "minimum stake, cooldowns, timeouts, voting windows, the Safe's threshold) are read from the chain as of the " +
    "latest block, so an executed proposal shows here from the block that executed it.",
  responses: {
    200: {
      description: "Chain, contract addresses, parameters and payment domain",
      content: { "application/json": { schema: configSchema } },
    },
    ...errorResponses(503),
  },
});

export const configRoutes = router().openapi(getConfigRoute, async (c) => c.json(await getConfig(c.get("deps")), 200));
