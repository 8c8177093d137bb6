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

/** What an allowed call refers to: an agent directly, or a run whose agent is read from the escrow. */
export type CallSubject = { kind: "agent"; agentId: bigint } | { kind: "run"; runId: bigint } | { kind: "none" };

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

interface Rule {
  target: Address;
  abi: Abi;
  /** Allowed function -> what its arguments refer to (undefined: refused). */
  functions: Record<string, (args: readonly unknown[]) => CallSubject | PolicyRefusal>;
}

const agentArg = (args: readonly unknown[]): CallSubject => ({ kind: "agent", agentId: args[0] as bigint });
const runArg = (args: readonly unknown[]): CallSubject => ({ kind: "run", runId: args[0] as bigint });

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
        approve: (args) =>
          spenders.some((s) => isAddressEqual(s, args[0] as Address))
            ? { kind: "none" }
            : new PolicyRefusal("CALL_NOT_ALLOWED", "USDC may only be approved to AgentHub's vault, escrow or pool"),
      },
    },
    {
      target: StakeVault.address,
      abi: StakeVaultAbi,
      functions: { deposit: agentArg, requestWithdrawal: agentArg, withdraw: agentArg },
    },
    {
      target: InsurancePool.address,
      abi: InsurancePoolAbi,
      functions: { stake: agentArg, requestWithdrawal: agentArg, withdraw: agentArg },
    },
    {
      target: RunEscrow.address,
      abi: RunEscrowAbi,
      functions: {
        claim: (args) => ({ kind: "agent", agentId: args[1] as bigint }),
        start: runArg,
        submit: runArg,
        dispute: runArg,
      },
    },
  ];
}

/** Checks each call against the rules and says what it refers to; throws the first refusal. */
export function classifyCalls(calls: Call[], rules: Rule[]): CallSubject[] {
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
    const subject = rule.functions[decoded.functionName]?.(decoded.args ?? []);
    if (!subject) {
      throw new PolicyRefusal("CALL_NOT_ALLOWED", `${where}${decoded.functionName} is not a sponsored agent action`);
    }
    if (subject instanceof PolicyRefusal) throw subject;
    return subject;
  });
}
