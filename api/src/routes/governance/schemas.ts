import { z } from "@hono/zod-openapi";
import { address, hexSignature, offsetPageQuery, txHash } from "../../lib/schemas.ts";
import { PROPOSAL_STATES } from "../../stores/governance.ts";

const MAX_UINT256 = 2n ** 256n - 1n;
const uint256 = z
  .string()
  .regex(/^\d{1,78}$/, "must be an unsigned integer string")
  .refine((v) => !/^\d{1,78}$/.test(v) || BigInt(v) <= MAX_UINT256, "must fit in uint256");

export const proposalIdParam = z.object({
  proposalId: uint256.openapi({ param: { name: "proposalId", in: "path" }, description: "Governor proposal id" }),
});
export const addressParam = z.object({ address: address.openapi({ param: { name: "address", in: "path" } }) });

export const proposalStatus = z.enum(PROPOSAL_STATES).openapi("ProposalStatus");

export const listQuery = z.object({
  status: proposalStatus.optional().openapi({
    param: { name: "status", in: "query" },
    description:
      "the Governor's state, lowercase. Not `expired`: OpenZeppelin 5's timelock has no grace period, so no " +
      "proposal ever expires (400 UNSUPPORTED_STATUS_FILTER)",
  }),
  ...offsetPageQuery(20),
});

export const proposal = z
  .object({
    id: z.string(),
    proposer: z.string(),
    description: z.string().openapi({ description: "markdown" }),
    status: proposalStatus.openapi({ description: "the Governor's state() now" }),
    forVotes: z.string().openapi({ description: "18-decimal token units" }),
    againstVotes: z.string(),
    abstainVotes: z.string(),
    snapshot: z.number().openapi({
      description:
        "the spec's startBlock: proposalSnapshot(), the timepoint votes are counted at; voting opens after it. The " +
        "token uses the ERC-6372 timestamp clock, so this is unix seconds, not a block number",
    }),
    deadline: z.number().openapi({
      description: "the spec's endBlock: proposalDeadline(), the last timepoint of voting (unix seconds)",
    }),
    clockMode: z.literal("mode=timestamp").openapi({ description: "the Governor's CLOCK_MODE()" }),
    eta: z
      .number()
      .nullable()
      .openapi({ description: "unix seconds the timelock allows execution; null unless queued" }),
    voteStart: z.string().openapi({ description: "snapshot as an ISO time" }),
    voteEnd: z.string().openapi({ description: "deadline as an ISO time" }),
    targets: z.array(z.string()),
    values: z.array(z.string()).openapi({ description: "wei, as strings" }),
    calldatas: z.array(z.string()),
    createdAt: z.string(),
    txHash: z.string().openapi({ description: "the propose() transaction" }),
  })
  .openapi("Proposal");

export const proposalList = z
  .object({ proposals: z.array(proposal), total: z.number(), limit: z.number(), offset: z.number() })
  .openapi("ProposalList");

const hexBytes = z.string().regex(/^0x([0-9a-fA-F]{2})*$/, "must be 0x-prefixed hex bytes");
const wei = z.union([
  z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  z.string().regex(/^\d{1,78}$/, "must be an unsigned integer (wei)"),
]);

export const proposeBody = z
  .object({
    description: z.string().min(1).max(20_000),
    targets: z.array(address).min(1).max(10),
    values: z.array(wei).min(1).max(10).openapi({ description: "wei per call (numbers or decimal strings)" }),
    calldatas: z.array(hexBytes).min(1).max(10),
    txHash: txHash.optional().openapi({
      description:
        "the proposer's own propose(targets, values, calldatas, description) transaction; without it the API only " +
        "checks the proposal and answers the transaction to send",
    }),
  })
  .refine((b) => b.targets.length === b.values.length && b.values.length === b.calldatas.length, {
    message: "targets, values and calldatas must have the same length",
  });

export const preparedProposal = z
  .object({
    proposalId: z.string(),
    descriptionHash: z.string(),
    proposer: z.string(),
    votingPower: z.string(),
    proposalThreshold: z.string(),
    transaction: z.object({ to: z.string(), data: z.string(), value: z.string() }),
    message: z.string(),
  })
  .openapi("PreparedProposal");

export const proposalCreated = z
  .object({ success: z.boolean(), proposal, txHash: z.string(), message: z.string() })
  .openapi("ProposalCreated");

export const cancelBody = z.object({
  txHash: txHash.optional().openapi({
    description:
      "the proposer's own cancel(targets, values, calldatas, descriptionHash) transaction; without it the API checks " +
      "that the bearer may cancel and answers the transaction to send",
  }),
});

export const preparedCancel = z
  .object({
    proposalId: z.string(),
    proposer: z.string(),
    status: proposalStatus,
    transaction: z.object({ to: z.string(), data: z.string(), value: z.string() }),
    message: z.string(),
  })
  .openapi("PreparedCancel");

export const proposalCanceled = z
  .object({ success: z.boolean(), proposal, txHash: z.string(), message: z.string() })
  .openapi("ProposalCanceled");

export const voteBody = z.object({
  support: z.union([z.literal(0), z.literal(1), z.literal(2)]).openapi({ description: "0 against, 1 for, 2 abstain" }),
  reason: z.string().max(2000).optional(),
  signature: hexSignature.openapi({
    description: "EIP-712 Ballot (no reason) or ExtendedBallot with params 0x (with reason), signed by the voter",
  }),
  voter: address.optional().openapi({ description: "defaults to the access token's address; must equal it" }),
});

export const voteResult = z
  .object({
    success: z.boolean(),
    proposalId: z.string(),
    voter: z.string(),
    support: z.number(),
    weight: z.string().openapi({ description: "votes counted, 18-decimal token units" }),
    reason: z.string(),
    txHash: z.string(),
    proposal,
    message: z.string(),
  })
  .openapi("VoteResult");

export const votingPower = z
  .object({
    address: z.string(),
    balance: z.string().openapi({ description: "token balance, 18-decimal units" }),
    votingPower: z.string().openapi({ description: "current votes (delegated to this address)" }),
    delegatedTo: z
      .string()
      .nullable()
      .openapi({ description: "'self', the delegate's address, or null when the holder has not delegated" }),
    delegatedFrom: z.array(z.string()).openapi({ description: "other holders delegating to this address" }),
    ballotNonce: z.string().openapi({ description: "Governor nonce to sign the next ballot with" }),
  })
  .openapi("VotingPower");

export const treasuryResult = z
  .object({
    address: z.string().openapi({ description: "the timelock (treasury)" }),
    balances: z.record(z.string(), z.string()).openapi({ description: "USDC, the governance token symbol, ETH" }),
  })
  .openapi("Treasury");
