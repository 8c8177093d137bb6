// Run states: the spec's eight API states plus four for escrow outcomes the spec does not name
// (docs/decisions.md "Run states: escrow contract -> API").
export const RUN_STATES = [
  "DRAFT",
  "OPEN",
  "CLAIMED",
  "IN_PROGRESS",
  "SUBMITTED",
  "APPROVED",
  "REVISION_REQUESTED",
  "REJECTED",
  "DISPUTED",
  "CANCELLED",
  "TIMED_OUT",
  "DISPUTE_EXPIRED",
] as const;
export type RunState = (typeof RUN_STATES)[number];

/** RunEscrow.RunState names (as the indexer stores them) -> API state. DRAFT has no contract state. */
export const CONTRACT_TO_API = {
  Open: "OPEN",
  Claimed: "CLAIMED",
  InProgress: "IN_PROGRESS",
  Submitted: "SUBMITTED",
  RevisionRequested: "REVISION_REQUESTED",
  Disputed: "DISPUTED",
  Completed: "APPROVED",
  Rejected: "REJECTED",
  Cancelled: "CANCELLED",
  TimedOut: "TIMED_OUT",
  DisputeExpired: "DISPUTE_EXPIRED",
} as const satisfies Record<string, Exclude<RunState, "DRAFT">>;
export type ContractState = keyof typeof CONTRACT_TO_API;

export const API_TO_CONTRACT = Object.fromEntries(
  Object.entries(CONTRACT_TO_API).map(([contract, api]) => [api, contract]),
) as Record<Exclude<RunState, "DRAFT">, ContractState>;

/** Index of each state in IRunEscrow.RunState (for decoding RunEscrowInvalidState(runId, state)). */
export const CONTRACT_STATE_ORDER = [
  "None",
  "Open",
  "Claimed",
  "InProgress",
  "Submitted",
  "RevisionRequested",
  "Disputed",
  "Completed",
  "Rejected",
  "Cancelled",
  "TimedOut",
  "DisputeExpired",
] as const;

/** API state of a run: DRAFT until funded; a funded run the indexer has not shown yet is OPEN (what RunCreated sets). */
export function apiState(contractState: string | null, funded: boolean): RunState {
  if (!funded) return "DRAFT";
  if (contractState === null) return "OPEN";
  const mapped = CONTRACT_TO_API[contractState as ContractState];
  if (!mapped) throw new Error(`unknown escrow state ${contractState}`);
  return mapped;
}

/** States in which the escrow still holds the run's reward + fee. */
export const HELD_STATES: readonly RunState[] = [
  "OPEN",
  "CLAIMED",
  "IN_PROGRESS",
  "SUBMITTED",
  "REVISION_REQUESTED",
  "DISPUTED",
];

export const TERMINAL_STATES: readonly RunState[] = [
  "APPROVED",
  "REJECTED",
  "CANCELLED",
  "TIMED_OUT",
  "DISPUTE_EXPIRED",
];

/** Platform fee at `feeBps` (RunEscrow's rate, set by governance), rounded up exactly as the escrow does. */
export { feeOf } from "./fee.ts";
