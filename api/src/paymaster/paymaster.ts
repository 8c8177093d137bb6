// The sponsoring paymaster's use case (ERC-7677 behind /api/paymaster): check a UserOperation against AgentHub's
// policy, reserve its maximum cost in the budgets, and sign VerifyingPaymaster's hash with the paymaster's own key.
// Policy, in order: our EntryPoint and chain; every call an allowed agent action (calls.ts) naming exactly one
// agent; each gas limit within what the operation needs (preVerificationGas by its size, verification gas by the
// account kind, call gas by its calls) and the price within bounds; the agent registered (indexed), neither FROZEN
// nor BANNED (the status the API derives from indexed chain state), and the sender its account (token owner, or its
// generated wallet while bound); the sender running canonical account code (account-code.ts); the agent staked (at
// least StakeVault.minStake on chain, or the operation deposits it from USDC the sender holds); for a signature, the
// next nonce of its key; the agent's and the global budget of the period (the sender's latest request is its one
// pending reservation, so nobody asking for someone else's account can lock it out).
import type { Deployments } from "@agenthub/common";
import { RunEscrowAbi } from "@agenthub/common/generated/abis";
import type pg from "pg";
import type { Logger } from "pino";
import { Counter, Gauge, type Registry } from "prom-client";
import { type Address, decodeFunctionData, type Hex, isAddressEqual, type PublicClient, parseAbi } from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import type { ChainViews, Db } from "../db/index.ts";
import type { ApiEnv } from "../env.ts";
import { type ChainClock, chainClock } from "../lib/chain-time.ts";
import type { ProtocolParamsReader } from "../lib/protocol.ts";
import { findAgent, statusOf } from "../stores/agents.ts";
import { type Budget, BudgetStore } from "../stores/paymaster-budget.ts";
import { AccountCode } from "./account-code.ts";
import { accountCalls, allowedCalls, type ClassifiedCall, callGasCap, classifyCalls, PolicyRefusal } from "./calls.ts";
import {
  isEip7702Marker,
  maxCostWei,
  paymasterData,
  paymasterHash,
  preVerificationGasBound,
  STUB_SIGNATURE,
  totalGasLimit,
  type UserOperation,
} from "./user-operation.ts";

const factoryAbi = parseAbi(["function createAccount(address owner, uint256 salt)"]);

/**
 * The init code runs calls too, outside the call policy: an EIP-7702 operation may carry none (the marker alone),
 * and an account deployment must be exactly SimpleAccountFactory.createAccount.
 */
function checkInitCode(op: UserOperation, factory: Address): void {
  if (!op.factory) return;
  const initData = op.factoryData ?? "0x";
  if (isEip7702Marker(op.factory)) {
    if (initData === "0x") return;
    throw new PolicyRefusal("CALL_NOT_ALLOWED", "EIP-7702 initialization calls are not sponsored");
  }
  if (!isAddressEqual(op.factory, factory)) {
    throw new PolicyRefusal("CALL_NOT_ALLOWED", "only accounts of the SimpleAccountFactory are deployed sponsored");
  }
  try {
    decodeFunctionData({ abi: factoryAbi, data: initData as Hex });
  } catch {
    throw new PolicyRefusal("CALL_NOT_ALLOWED", "the factory call must be createAccount(owner, salt)");
  }
}

/**
 * Verification gas sponsored per account kind: a deployed SimpleAccount or a Simple7702Account (the bundler
 * estimates ~50k-60k), and an operation that deploys a SimpleAccount through the factory (~240k).
 */
export const ACCOUNT_VERIFICATION_GAS = 100_000n;
export const ACCOUNT_DEPLOYMENT_VERIFICATION_GAS = 400_000n;

/** Gas the paymaster's validation may use (ECDSA recovery and hashing the call data; measured ~25k). */
export const PAYMASTER_VERIFICATION_GAS = 60_000n;
/** No postOp: the paymaster returns no context. */
export const PAYMASTER_POST_OP_GAS = 0n;

export interface PaymasterResult {
  paymaster: Address;
  paymasterData: Hex;
  paymasterVerificationGasLimit: Hex;
  paymasterPostOpGasLimit: Hex;
  isFinal?: boolean;
  sponsor?: { name: string };
}

const hexQuantity = (v: bigint): Hex => `0x${v.toString(16)}`;
const entryPointAbi = parseAbi([
  "function balanceOf(address account) view returns (uint256)",
  "function getNonce(address sender, uint192 key) view returns (uint256)",
]);
const erc20BalanceAbi = parseAbi(["function balanceOf(address account) view returns (uint256)"]);
const stakeOfAbi = parseAbi(["function stakeOf(uint256 agentId) view returns (uint256)"]);

interface PaymasterDeps {
  env: ApiEnv;
  pool: pg.Pool;
  /** The operations pool (/ready, /metrics): series never take a connection a request waits for. */
  opsPool: pg.Pool;
  deployments: Deployments;
  chain: PublicClient;
  logger: Logger;
  db: Db;
  views: ChainViews;
  clock: ChainClock;
  params: ProtocolParamsReader;
  /** Shared with signed-action checks (one read of the factory per process); made here when not given. */
  accountCode?: AccountCode;
}

export class Paymaster {
  readonly address: Address;
  readonly entryPoint: Address;
  readonly budgets: BudgetStore;
  /** The same ledger read through the operations pool, for /metrics. */
  private readonly metricsBudgets: BudgetStore;
  private readonly signer: PrivateKeyAccount;
  private readonly rules: ReturnType<typeof allowedCalls>;
  private readonly accountCode: AccountCode;
  private readonly requests: Counter;
  private deposit: { at: number; value: Promise<bigint> } | undefined;

  constructor(
    private readonly deps: PaymasterDeps,
    signerKey: Hex,
    registry: Registry,
  ) {
    const aa = deps.deployments.accountAbstraction;
    if (!aa) throw new Error("the deployments file has no accountAbstraction section (redeploy or re-export it)");
    this.address = aa.paymaster.address;
    this.entryPoint = aa.entryPoint;
    this.signer = privateKeyToAccount(signerKey);
    this.rules = allowedCalls(deps.deployments);
    this.accountCode = deps.accountCode ?? new AccountCode(deps.chain, aa);
    const { env } = deps;
    const defaults = {
      agentBudgetWei: env.PAYMASTER_AGENT_BUDGET_WEI,
      globalBudgetWei: env.PAYMASTER_GLOBAL_BUDGET_WEI,
      periodSeconds: env.PAYMASTER_BUDGET_PERIOD_SECONDS,
    };
    this.budgets = new BudgetStore(deps.pool, deps.views.names.userOperation, defaults);
    this.metricsBudgets = new BudgetStore(deps.opsPool, deps.views.names.userOperation, defaults);
    this.requests = new Counter({
      name: "agenthub_paymaster_requests_total",
      help: "ERC-7677 requests by method and outcome (sponsored, or the refusal code)",
      labelNames: ["method", "result"],
      registers: [registry],
    });
    this.defineSeries(registry);
  }

  /** The key approving sponsorships (must match VerifyingPaymaster.verifyingSigner). */
  get signerAddress(): Address {
    return this.signer.address;
  }

  count(method: string, result: string): void {
    this.requests.inc({ method, result });
  }

  /** pm_getPaymasterStubData: the same policy (no budget reservation), a dummy signature for gas estimation. */
  async stubData(op: UserOperation, entryPoint: Address, chainId: bigint): Promise<PaymasterResult> {
    const { agentId } = await this.checkPolicy(op, entryPoint, chainId, { final: false });
    const budget = await this.budgets.budget();
    const now = await chainClock(this.deps).now();
    const spent = await this.budgets.spent(now - (now % BigInt(budget.periodSeconds)), now, agentId);
    if (spent.agent >= budget.agentBudgetWei) {
      throw new PolicyRefusal("AGENT_BUDGET_EXCEEDED", `agent ${agentId} has used its sponsorship budget this period`);
    }
    if (spent.global >= budget.globalBudgetWei) {
      throw new PolicyRefusal("GLOBAL_BUDGET_EXCEEDED", "the paymaster's budget for this period is used up");
    }
    return {
      ...this.result(paymasterData(0, 0, STUB_SIGNATURE)),
      isFinal: false,
      sponsor: { name: "AgentHub" },
    };
  }

  /** pm_getPaymasterData: policy, budget reservation at the operation's maximum cost, then the signature. */
  async data(op: UserOperation, entryPoint: Address, chainId: bigint): Promise<PaymasterResult> {
    const { agentId, delegate } = await this.checkPolicy(op, entryPoint, chainId, { final: true });
    // Only the next operation of its nonce key is signed: no approvals collected ahead for later nonces.
    const key = op.nonce >> 64n;
    const next = await this.deps.chain.readContract({
      address: this.entryPoint,
      abi: entryPointAbi,
      functionName: "getNonce",
      args: [op.sender, key],
    });
    if (op.nonce !== next) {
      throw new PolicyRefusal(
        "NONCE_NOT_NEXT",
        `only the sender's next operation of a nonce key is sponsored (${next} for key ${key}), not nonce ${op.nonce}`,
      );
    }
    // The operation is signed with our gas limits: those are what the EntryPoint will see.
    const signed = {
      ...op,
      paymasterVerificationGasLimit: PAYMASTER_VERIFICATION_GAS,
      paymasterPostOpGasLimit: PAYMASTER_POST_OP_GAS,
    };
    const now = await chainClock(this.deps).now();
    const validUntil = Number(now) + this.deps.env.PAYMASTER_VALIDITY_SECONDS;
    const refused = await this.budgets.reserve({
      sender: op.sender,
      nonce: op.nonce,
      agentId,
      maxCostWei: maxCostWei(signed),
      validUntil,
      now,
    });
    if (refused) throw new PolicyRefusal(refused.reason, refused.message);
    const hash = paymasterHash(signed, {
      chainId: this.deps.deployments.chainId,
      address: this.address,
      validUntil,
      validAfter: 0,
      delegate,
    });
    const signature = await this.signer.signMessage({ message: { raw: hash } });
    return this.result(paymasterData(validUntil, 0, signature));
  }

  async setBudget(budget: Budget): Promise<Budget> {
    const saved = await this.budgets.setBudget(budget);
    this.deps.logger.info(
      {
        agentBudgetWei: budget.agentBudgetWei.toString(),
        globalBudgetWei: budget.globalBudgetWei.toString(),
        periodSeconds: budget.periodSeconds,
      },
      "paymaster budget changed",
    );
    return saved;
  }

  /** The paymaster's EntryPoint deposit (what sponsorships are paid from), cached for a second. */
  depositWei(): Promise<bigint> {
    if (!this.deposit || Date.now() - this.deposit.at >= 1_000) {
      const value = this.deps.chain.readContract({
        address: this.entryPoint,
        abi: entryPointAbi,
        functionName: "balanceOf",
        args: [this.address],
      });
      value.catch(() => {}); // the caller sees the failure; the cache must not hold an unhandled rejection
      this.deposit = { at: Date.now(), value };
    }
    return this.deposit.value;
  }

  /** Logs an error while the deposit is below PAYMASTER_DEPOSIT_FLOOR_WEI (the floor alarm); returns whether low. */
  async checkDeposit(): Promise<boolean> {
    const deposit = await this.depositWei();
    const floor = this.deps.env.PAYMASTER_DEPOSIT_FLOOR_WEI;
    if (deposit >= floor) return false;
    this.deps.logger.error(
      { paymaster: this.address, depositWei: deposit.toString(), floorWei: floor.toString() },
      "paymaster deposit below its floor: top it up with EntryPoint.depositTo(paymaster) or sponsorships will fail",
    );
    return true;
  }

  /** Runs the floor alarm every PAYMASTER_DEPOSIT_CHECK_SECONDS; returns the stop function. */
  watchDeposit(): () => void {
    const check = () =>
      this.checkDeposit().catch((error: Error) =>
        this.deps.logger.warn({ err: error.message }, "paymaster deposit check failed"),
      );
    void check();
    const timer = setInterval(check, this.deps.env.PAYMASTER_DEPOSIT_CHECK_SECONDS * 1000);
    timer.unref();
    return () => clearInterval(timer);
  }

  private result(data: Hex): PaymasterResult {
    return {
      paymaster: this.address,
      paymasterData: data,
      paymasterVerificationGasLimit: hexQuantity(PAYMASTER_VERIFICATION_GAS),
      paymasterPostOpGasLimit: hexQuantity(PAYMASTER_POST_OP_GAS),
    };
  }

  /** Every rule but the budget; returns the one agent the operation acts for and the sender's EIP-7702 delegate. */
  private async checkPolicy(
    op: UserOperation,
    entryPoint: Address,
    chainId: bigint,
    { final }: { final: boolean },
  ): Promise<{ agentId: bigint; delegate: Address }> {
    const { deployments } = this.deps;
    if (!isAddressEqual(entryPoint, this.entryPoint)) {
      throw new PolicyRefusal("UNSUPPORTED_ENTRY_POINT", `only EntryPoint ${this.entryPoint} (v0.8) is sponsored`);
    }
    if (chainId !== BigInt(deployments.chainId)) {
      throw new PolicyRefusal("UNSUPPORTED_CHAIN", `only chain ${deployments.chainId} is sponsored`);
    }
    checkInitCode(op, deployments.accountAbstraction!.simpleAccountFactory);
    const subjects = classifyCalls(accountCalls(op.callData as Hex), this.rules);
    if (final) await this.checkGas(op, subjects);
    const agentIds = new Set<bigint>();
    for (const subject of subjects) {
      if (subject.kind === "agent") agentIds.add(subject.agentId);
      if (subject.kind === "run") agentIds.add(await this.agentOfRun(subject.runId));
    }
    if (agentIds.size === 0) {
      throw new PolicyRefusal(
        "CALL_NOT_ALLOWED",
        "the operation makes no agent action (approvals alone are not sponsored)",
      );
    }
    if (agentIds.size > 1) throw new PolicyRefusal("MULTIPLE_AGENTS", "a sponsored operation acts for one agent");
    const [agentId] = agentIds as unknown as [bigint];

    const agent = await findAgent(this.deps, agentId);
    if (!agent) throw new PolicyRefusal("AGENT_NOT_FOUND", `agent ${agentId} is not registered`);
    const isAccount =
      isAddressEqual(agent.owner as Address, op.sender) ||
      (agent.walletBound && isAddressEqual(agent.wallet as Address, op.sender));
    if (!isAccount) {
      throw new PolicyRefusal("NOT_AGENT_ACCOUNT", `${op.sender} does not act for agent ${agentId} (not its owner)`);
    }
    const { minStake } = await this.deps.params.current();
    const status = statusOf(agent, await chainClock(this.deps).now(), minStake);
    if (status === "FROZEN" || status === "BANNED") {
      throw new PolicyRefusal("AGENT_FROZEN", `agent ${agentId} is ${status}: its operations are not sponsored`);
    }
    const delegate = await this.accountCode.check(op);
    await this.checkStaked(op, agentId, subjects, minStake);
    return { agentId, delegate };
  }

  /**
   * Every gas field is priced by a rule: preVerificationGas by the operation's size (plus
   * PAYMASTER_PRE_VERIFICATION_GAS_MARGIN_PERCENT), verification gas by the account kind, call gas by the calls it
   * makes, the paymaster's own limits are ours, and the fee is bounded by the network's. Above any of them the
   * EntryPoint would pay the bundle's beneficiary (whoever calls handleOps) for gas the operation does not use.
   */
  private async checkGas(op: UserOperation, calls: ClassifiedCall[]): Promise<void> {
    const { env } = this.deps;
    const tooHigh = (what: string, value: bigint, cap: bigint) => {
      if (value > cap) throw new PolicyRefusal("GAS_LIMIT_TOO_HIGH", `${what} ${value} is over ${cap}`);
    };
    tooHigh(
      "preVerificationGas",
      op.preVerificationGas,
      (preVerificationGasBound(op) * BigInt(100 + env.PAYMASTER_PRE_VERIFICATION_GAS_MARGIN_PERCENT)) / 100n,
    );
    const deploys = op.factory !== undefined && !isEip7702Marker(op.factory);
    tooHigh(
      "verificationGasLimit",
      op.verificationGasLimit,
      deploys ? ACCOUNT_DEPLOYMENT_VERIFICATION_GAS : ACCOUNT_VERIFICATION_GAS,
    );
    tooHigh("callGasLimit", op.callGasLimit, callGasCap(calls));
    tooHigh(
      "the operation's gas limits add up to",
      totalGasLimit({ ...op, paymasterVerificationGasLimit: PAYMASTER_VERIFICATION_GAS }),
      env.PAYMASTER_MAX_GAS_PER_OPERATION,
    );
    if (op.maxPriorityFeePerGas > op.maxFeePerGas) {
      throw new PolicyRefusal("GAS_PRICE_TOO_HIGH", "maxPriorityFeePerGas is over maxFeePerGas");
    }
    // A priority fee far above the network's would hand the paymaster's deposit to whoever bundles it.
    const fees = await this.deps.chain.estimateFeesPerGas();
    const ceiling = (fees.maxFeePerGas * BigInt(env.PAYMASTER_MAX_FEE_PERCENT)) / 100n;
    if (op.maxFeePerGas > ceiling) {
      throw new PolicyRefusal(
        "GAS_PRICE_TOO_HIGH",
        `maxFeePerGas ${op.maxFeePerGas} is over ${env.PAYMASTER_MAX_FEE_PERCENT}% of the network's ${fees.maxFeePerGas}`,
      );
    }
  }

  /**
   * Sybil cost: only an agent with at least the minimum stake in the vault (read on chain; a pending withdrawal still
   * counts, it stays locked for the cooldown) is sponsored, except for the operation that brings it there from USDC
   * the sender holds. Each sponsored agent thus locks StakeVault.minStake of its owner's money.
   */
  private async checkStaked(
    op: UserOperation,
    agentId: bigint,
    calls: ClassifiedCall[],
    minStake: bigint,
  ): Promise<void> {
    const { StakeVault } = this.deps.deployments.contracts;
    const staked = await this.deps.chain.readContract({
      address: StakeVault.address,
      abi: stakeOfAbi,
      functionName: "stakeOf",
      args: [agentId],
    });
    if (staked >= minStake) return;
    const deposits = calls.reduce((sum, call) => sum + (call.kind === "agent" ? (call.stakes ?? 0n) : 0n), 0n);
    const held =
      deposits > 0n
        ? await this.deps.chain.readContract({
            address: this.deps.deployments.usdc.address,
            abi: erc20BalanceAbi,
            functionName: "balanceOf",
            args: [op.sender],
          })
        : 0n;
    if (staked + deposits < minStake || held < deposits) {
      throw new PolicyRefusal(
        "AGENT_NOT_STAKED",
        `agent ${agentId} has ${staked} of the ${minStake} USDC base units of stake sponsorship needs: ` +
          "only an operation depositing the rest from USDC the sender holds is sponsored",
      );
    }
  }

  /** The agent a run is claimed by, read from the escrow (the chain wins over the index for the current claim). */
  private async agentOfRun(runId: bigint): Promise<bigint> {
    try {
      const run = await this.deps.chain.readContract({
        address: this.deps.deployments.contracts.RunEscrow.address,
        abi: RunEscrowAbi,
        functionName: "getRun",
        args: [runId],
      });
      if (run.agentId === 0n) throw new PolicyRefusal("RUN_NOT_CLAIMED", `run ${runId} is not claimed by an agent`);
      return run.agentId;
    } catch (error) {
      if (error instanceof PolicyRefusal) throw error;
      throw new PolicyRefusal("RUN_NOT_FOUND", `run ${runId} does not exist`);
    }
  }

  private defineSeries(registry: Registry): void {
    const registers = [registry];
    const paymaster = this;
    new Gauge({
      name: "agenthub_paymaster_deposit_wei",
      help: "The paymaster's EntryPoint deposit, which pays for sponsored operations",
      registers,
      async collect() {
        await paymaster
          .depositWei()
          .then((v) => this.set(Number(v)))
          .catch(() => this.reset());
      },
    });
    new Gauge({
      name: "agenthub_paymaster_deposit_low",
      help: "1 while the paymaster's deposit is below PAYMASTER_DEPOSIT_FLOOR_WEI (the floor alarm)",
      registers,
      async collect() {
        await paymaster
          .depositWei()
          .then((v) => this.set(v < paymaster.deps.env.PAYMASTER_DEPOSIT_FLOOR_WEI ? 1 : 0))
          .catch(() => this.reset());
      },
    });
    new Gauge({
      name: "agenthub_paymaster_budget_wei",
      help: "Sponsorship budget per period: per agent and global",
      labelNames: ["scope"],
      registers,
      async collect() {
        const budget = await paymaster.metricsBudgets.budget().catch(() => undefined);
        if (!budget) return this.reset();
        this.set({ scope: "agent" }, Number(budget.agentBudgetWei));
        this.set({ scope: "global" }, Number(budget.globalBudgetWei));
      },
    });
    new Gauge({
      name: "agenthub_paymaster_budget_period_seconds",
      help: "Length of a sponsorship budget period",
      registers,
      async collect() {
        const budget = await paymaster.metricsBudgets.budget().catch(() => undefined);
        if (budget) this.set(budget.periodSeconds);
        else this.reset();
      },
    });
    new Gauge({
      name: "agenthub_paymaster_spent_wei",
      help: "Sponsored this period (actual cost of executed operations, maximum cost of signed pending ones)",
      registers,
      async collect() {
        try {
          const budget = await paymaster.metricsBudgets.budget();
          const now = await chainClock(paymaster.deps).now();
          const spent = await paymaster.metricsBudgets.spent(now - (now % BigInt(budget.periodSeconds)), now);
          this.set(Number(spent.global));
        } catch {
          this.reset(); // a failed probe empties the series instead of failing the scrape
        }
      },
    });
  }
}
