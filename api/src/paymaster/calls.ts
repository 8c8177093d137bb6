// What a sponsored UserOperation may do: its account call (SimpleAccount / Simple7702Account `execute` or
// `executeBatch`, ERC-4337 v0.8 BaseAccount) is decoded into calls, and every call must be one of AgentHub's agent
// actions below, with no ETH attached. Pure: the sponsor use case resolves the agents and runs it names.
import type { Deployments } from "@agenthub/common";
import { InsurancePoolAbi, RunEscrowAbi, StakeVaultAbi, TestUSDCAbi } from "@agenthub/common/generated/abis";
import { type Abi, type Address, decodeFunctionData, type Hex, isAddressEqual, parseAbi } from "viem";

/** BaseAccount (v0.8): `execute(target, value, data)` and `executeBatch(Call[])`. */
export const accountAbi = parseAbi([
  "function execute(address target, uint256 value, bytes data)",
  "struct Call { address target; uint256 value; bytes data; }",
  "function executeBatch(Call[] calls)",
]);

export interface Call {
  target: Address;
  value: bigint;
  data: Hex;
}

/**
 * What an allowed call refers to: an agent directly (`stakes`: the USDC a StakeVault deposit adds to its stake), or a
 * run whose agent is read from the escrow.
 */
export type CallSubject =
  | { kind: "agent"; agentId: bigint; stakes?: bigint }
  | { kind: "run"; runId: bigint }
  | { kind: "none" };

/** An allowed call: what it refers to, and the most execution gas the policy pays for it. */
export type ClassifiedCall = CallSubject & { gas: bigint };

export class PolicyRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The calls an account call makes, or a refusal when it is not `execute` / `executeBatch`. */
export function accountCalls(callData: Hex): Call[] {
  let decoded: ReturnType<typeof decodeFunctionData<typeof accountAbi>>;
  try {
    decoded = decodeFunctionData({ abi: accountAbi, data: callData });
  } catch {
    throw new PolicyRefusal("CALL_NOT_ALLOWED", "the account call is not execute or executeBatch (ERC-4337 v0.8)");
  }
  if (decoded.functionName === "execute") {
    const [target, value, data] = decoded.args;
    return [{ target, value, data }];
  }
  const [calls] = decoded.args;
  if (calls.length === 0) throw new PolicyRefusal("CALL_NOT_ALLOWED", "an empty batch sponsors nothing");
  return calls.map((c) => ({ target: c.target, value: c.value, data: c.data }));
}

interface Action {
  /** What the call's arguments refer to, or why they are refused. */
  subject: (args: readonly unknown[]) => CallSubject | PolicyRefusal;
  /**
   * The call gas sponsored for it: about twice what the bundler estimates for the call on the local chain
   * (docs/decisions.md, "Sponsorship policy"), so an operation cannot buy execution gas the action does not need.
   */
  gas: bigint;
}

interface Rule {
  target: Address;
  abi: Abi;
  /** Allowed function -> its action (undefined: refused). */
  functions: Record<string, Action>;
}

/** The account's own execute/executeBatch around the calls (dispatch, decoding, one loop step per call). */
export const ACCOUNT_CALL_OVERHEAD_GAS = 20_000n;

const agentArg = (gas: bigint): Action => ({
  subject: (args) => ({ kind: "agent", agentId: args[0] as bigint }),
  gas,
});
const runArg = (gas: bigint): Action => ({ subject: (args) => ({ kind: "run", runId: args[0] as bigint }), gas });

/** The agent actions AgentHub sponsors, per contract of this deployment. */
export function allowedCalls(deployments: Deployments): Rule[] {
  const { StakeVault, RunEscrow, InsurancePool } = deployments.contracts;
  // USDC may only be approved to AgentHub's own contracts, for the deposit or stake batched with it.
  const spenders = [StakeVault.address, RunEscrow.address, InsurancePool.address];
  return [
    {
      target: deployments.usdc.address,
      abi: TestUSDCAbi,
      functions: {
        approve: {
          subject: (args) =>
            spenders.some((s) => isAddressEqual(s, args[0] as Address))
              ? { kind: "none" }
              : new PolicyRefusal("CALL_NOT_ALLOWED", "USDC may only be approved to AgentHub's vault, escrow or pool"),
          gas: 60_000n,
        },
      },
    },
    {
      target: StakeVault.address,
      abi: StakeVaultAbi,
      functions: {
        deposit: {
          subject: (args) => ({ kind: "agent", agentId: args[0] as bigint, stakes: args[1] as bigint }),
          gas: 150_000n,
        },
        requestWithdrawal: agentArg(80_000n),
        withdraw: agentArg(120_000n),
      },
    },
    {
      target: InsurancePool.address,
      abi: InsurancePoolAbi,
      functions: { stake: agentArg(120_000n), requestWithdrawal: agentArg(100_000n), withdraw: agentArg(120_000n) },
    },
    {
      target: RunEscrow.address,
      abi: RunEscrowAbi,
      functions: {
        claim: { subject: (args) => ({ kind: "agent", agentId: args[1] as bigint }), gas: 150_000n },
        start: runArg(80_000n),
        submit: runArg(120_000n),
        dispute: runArg(120_000n),
      },
    },
  ];
}

/** Checks each call against the rules and says what it refers to and the gas it may use; throws the first refusal. */
export function classifyCalls(calls: Call[], rules: Rule[]): ClassifiedCall[] {
  return calls.map((call, i) => {
    const where = calls.length > 1 ? `call ${i}: ` : "";
    if (call.value !== 0n) throw new PolicyRefusal("CALL_NOT_ALLOWED", `${where}sponsored calls carry no ETH`);
    const rule = rules.find((r) => isAddressEqual(r.target, call.target));
    if (!rule) throw new PolicyRefusal("CALL_NOT_ALLOWED", `${where}${call.target} is not an AgentHub contract`);
    let decoded: { functionName: string; args?: readonly unknown[] };
    try {
      decoded = decodeFunctionData({ abi: rule.abi, data: call.data }) as typeof decoded;
    } catch {
      throw new PolicyRefusal("CALL_NOT_ALLOWED", `${where}unknown function on ${call.target}`);
    }
    const action = rule.functions[decoded.functionName];
    if (!action) {
      throw new PolicyRefusal("CALL_NOT_ALLOWED", `${where}${decoded.functionName} is not a sponsored agent action`);
    }
    const subject = action.subject(decoded.args ?? []);
    if (subject instanceof PolicyRefusal) throw subject;
    return { ...subject, gas: action.gas };
  });
}

/** The call gas an operation making `calls` may ask for: each call's, plus the account's own overhead. */
export const callGasCap = (calls: ClassifiedCall[]): bigint =>
  calls.reduce((sum, call) => sum + call.gas, ACCOUNT_CALL_OVERHEAD_GAS);
