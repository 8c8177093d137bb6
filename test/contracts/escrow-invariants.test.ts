/**
 * Model-based fuzzing of RunEscrow + StakeVault.
 *
 * Each sequence starts from the same snapshot (3 staked-or-not agents, 2 funded posters, a USDC with Circle's
 * blacklist) and applies 10..30 random actions: run lifecycle calls by the right actor, the relayer or a stranger
 * (the relayer either calls directly, refused, or submits a `...BySig` consent: valid, signed by the wrong party,
 * expired, forged, for another run, or a replay of one the escrow already spent);
 * deposits, withdrawals, moderation slashes and bans, agent token transfers, blacklisting and unblacklisting of
 * posters and agent owners (payments to them fall back to credits), fee sweeps, reward payouts, credit withdrawals, time jumps,
 * emergency pauses of the escrow, the vault and the insurance pool (PAUSER_ROLE), governance changes of the minimum
 * stake and the claim timeout, and insurance: coverage stakes, run covers fixed at funding (within the governance
 * bound, carried by the agent's claim consent) and claims after a
 * verified failure against the real escrow's failure records.
 * A TypeScript model predicts every outcome (success or the exact custom error); after every step the chain must
 * match the model and the accounting invariants must hold:
 *
 *   usdc.balanceOf(escrow) == totalOwed() == sum over live runs of (reward + fee) + feesAccrued() + sum of rewardsOf
 *                             + escrow credits
 *   usdc.balanceOf(vault)  == totalStaked() + totalCredits(), totalStaked() == sum of stakeOf(agent)
 *   locksOf(agent) == number of live runs the agent holds; trust state and strikes as the model says
 *   usdc.balanceOf(pool) == totalCoverage() == sum of coverageOf(agent); a run's insurance is paid at most once and
 *   never more than its declared cover minus the stake slashed to the poster
 *
 * Every run prints its seed; reproduce a failure with it: FUZZ_SEED=<seed> pnpm hardhat test mocha test/contracts/escrow-invariants.test.ts
 * A developer run draws a new seed (more of the space explored over time); CI (CI set) replays CI_FUZZ_SEED, so a
 * red build is reproducible and a green one means the same sequences passed.
 * Tune with FUZZ_SEQUENCES (default 300) and FUZZ_MAX_STEPS (default 30, at least 10 per sequence).
 */
import assert from "node:assert/strict";
import {
  consentNonceKey,
  type RunConsentAction,
  runConsentTypedData,
  runFundingTypedData,
} from "@agenthub/sdk/protocol";
import { network } from "hardhat";
import type { NetworkConnection } from "hardhat/types/network";
import { describe, it } from "mocha";
import { type Abi, type Address, decodeErrorResult, type Hex, maxUint256, zeroHash } from "viem";
import { bytes32, CHAIN_ID, type Consent, DAY, deployCoreWithBlacklist, feeOf, prng, wait } from "./fixtures.ts";

const { networkHelpers } = await network.create();

const SEQUENCES = Number(process.env.FUZZ_SEQUENCES ?? 300);
const MAX_STEPS = Number(process.env.FUZZ_MAX_STEPS ?? 30);
/** The seed CI replays. */
const CI_FUZZ_SEED = 20261123;
const BASE_SEED = fuzzSeed();

function fuzzSeed(): number {
  const pinned = process.env.FUZZ_SEED;
  if (pinned !== undefined && pinned !== "") {
    if (!/^\d+$/.test(pinned)) throw new Error(`FUZZ_SEED must be a non-negative integer, got ${pinned}`);
    return Number(pinned);
  }
  return process.env.CI ? CI_FUZZ_SEED : Math.floor(Math.random() * 2 ** 31);
}

const MIN_STAKE = 20_000_000n;
const COOLDOWN = 14n * DAY;
const TIMEOUT = 7n * DAY;
const REVIEW = 7n * DAY;
const DISPUTE = 14n * DAY;
const MIN_REWARD = 10_000n;
const SLASH_PERIOD = DAY;
const MAX_SLASHES_PER_PERIOD = 10;
const BAN_AFTER_STRIKES = 3;
const GAS = 3_000_000n;

enum S {
  None = 0,
  Open = 1,
  Claimed = 2,
  InProgress = 3,
  Submitted = 4,
  RevisionRequested = 5,
  Disputed = 6,
  Completed = 7,
  Rejected = 8,
  Cancelled = 9,
  TimedOut = 10,
  DisputeExpired = 11,
}
const LIVE = new Set([S.Open, S.Claimed, S.InProgress, S.Submitted, S.RevisionRequested, S.Disputed]);
/** Live states in which an agent holds the run (its minimum stake is locked). */
const HELD = new Set([S.Claimed, S.InProgress, S.Submitted, S.RevisionRequested, S.Disputed]);
enum Trust {
  Good = 0,
  Frozen = 1,
  Banned = 2,
}
enum Fail {
  None = 0,
  Rejected = 1,
  TimedOut = 2,
  DisputeLost = 3,
}

async function fuzzSetup(connection: NetworkConnection) {
  const core = await deployCoreWithBlacklist(connection);
  const { escrow, vault, identity, publicClient, wallets } = core;
  const usdc = await connection.viem.getContractAt("MockBlacklistUSDC", core.usdc.address);
  const all = await connection.viem.getWalletClients();
  const stranger = all[8];
  if (!stranger) throw new Error("need 9 accounts");
  const posters = [wallets.poster, wallets.poster2];
  const owners = [wallets.agentOwner, wallets.agentOwner2, wallets.other];
  const BIG = 10n ** 15n;
  for (const p of posters) {
    await wait(publicClient, usdc.write.mint([p.account.address, BIG]));
    await wait(publicClient, usdc.write.approve([escrow.address, maxUint256], { account: p.account }));
  }
  for (const o of owners) {
    await wait(publicClient, usdc.write.mint([o.account.address, BIG]));
    await wait(publicClient, usdc.write.approve([vault.address, maxUint256], { account: o.account }));
    await wait(
      publicClient,
      identity.write.mint([o.account.address, `ipfs://agent-${o.account.address}`], {
        account: wallets.relayer.account,
      }),
    );
  }
  const pool = await connection.viem.deployContract("InsurancePool", [
    usdc.address,
    escrow.address,
    identity.address,
    wallets.admin.account.address,
    wallets.relayer.account.address,
  ]);
  const pauser = await pool.read.PAUSER_ROLE();
  await wait(
    publicClient,
    pool.write.grantRole([pauser, wallets.admin.account.address], { account: wallets.admin.account }),
  );
  for (const o of owners) {
    await wait(publicClient, usdc.write.approve([pool.address, maxUint256], { account: o.account }));
  }
  // Agents 1 and 2 start staked; agent 3 has nothing.
  await wait(publicClient, vault.write.deposit([1n, 2n * MIN_STAKE], { account: owners[0]!.account }));
  await wait(publicClient, vault.write.deposit([2n, MIN_STAKE], { account: owners[1]!.account }));
  // Agents 1 and 2 start insured (50 and 30 USDC of coverage); agent 3 is not.
  await wait(publicClient, pool.write.stake([1n, 50_000_000n], { account: owners[0]!.account }));
  await wait(publicClient, pool.write.stake([2n, 30_000_000n], { account: owners[1]!.account }));
  // The subscription vault: the escrow's only sponsor, spending a subscriber's escrowed balance on that subscriber's
  // runs at the signed terms. Posters subscribe (and top up) from their allowance.
  const subs = await connection.viem.deployContract("SubscriptionVault", [
    usdc.address,
    escrow.address,
    wallets.admin.account.address,
    wallets.relayer.account.address,
  ]);
  await wait(
    publicClient,
    escrow.write.grantRole([await escrow.read.SPONSOR_ROLE(), subs.address], { account: wallets.admin.account }),
  );
  for (const p of posters) {
    await wait(publicClient, usdc.write.approve([subs.address, maxUint256], { account: p.account }));
  }
  return { ...core, usdc, pool, subs, stranger, posters, owners };
}

type Fx = Awaited<ReturnType<typeof fuzzSetup>>;
type Wallet = Fx["stranger"];

type RunM = {
  poster: Address;
  reward: bigint;
  fee: bigint;
  deadline: bigint;
  maxRevisions: number;
  revisions: number;
  state: S;
  agentId: bigint;
  claimedAt: bigint;
  since: bigint;
  deliverableHash: Hex;
  failure: [bigint, Fail, bigint];
  /** The subscription (id) that posted it, if any. */
  sub?: bigint;
};
enum SubStatus {
  None = 0,
  Active = 1,
  Paused = 2,
  Completed = 3,
  Cancelled = 4,
}
/** A SubscriptionVault subscription, and what went in and out of it. */
type SubM = {
  subscriber: Address;
  rewardPerRun: bigint;
  interval: bigint;
  totalRuns: number;
  runDuration: bigint;
  maxRevisions: number;
  nextRunAt: bigint;
  status: SubStatus;
  runsCreated: number;
  balance: bigint;
  /** Funded (open and top-ups). */
  paidIn: bigint;
  /** Refunded to the subscriber (cancel, completion). */
  refunded: bigint;
};
type AgentM = {
  owner: Address;
  /** Rewards of approved runs not yet paid (RunEscrow.rewardsOf). */
  rewards: bigint;
  stake: bigint;
  pending: bigint;
  availableAt: bigint;
  locks: number;
  strikes: number;
  trust: Trust;
};

const lc = (a: Address) => a.toLowerCase() as Address;

/** Every action that must succeed at least once over a run of the fuzz (credits are checked when settled). */
const REQUIRED = [
  "createRun",
  "createRunWithAuthorization",
  "cancel",
  "cancelBySig",
  "claim",
  "claimBySig",
  "start",
  "startBySig",
  "submit",
  "submitBySig",
  "approve",
  "approveBySig",
  "requestRevision",
  "requestRevisionBySig",
  "reject",
  "rejectBySig",
  "dispute",
  "disputeBySig",
  "resolve",
  "timeoutSlash",
  "releaseAfterReview",
  "expireDispute",
  "deposit",
  "requestWithdrawal",
  "withdraw",
  "slash",
  "ban",
  "transferAgent",
  "blacklist",
  "unBlacklist",
  "payRewards",
  "sweepFees",
  "setSlashBps",
  "setFeeBps",
  "setMinStake",
  "setClaimTimeout",
  "setWindows",
  "setMinReward",
  "setMaxCoverBps",
  "escrow.pause",
  "escrow.unpause",
  "vault.pause",
  "vault.unpause",
  "pool.pause",
  "pool.unpause",
  "pool.stake",
  "pool.claim",
  "sub.open",
  "sub.topUp",
  "sub.trigger",
  "sub.pause",
  "sub.resume",
  "sub.cancel",
];
/** Which action produces a name, learned as the fuzz runs (the direct and consented variants share one action). */
const producers = new Map<string, number>();
const SHARED: Record<string, string> = {
  createRunWithAuthorization: "createRun",
  unBlacklist: "blacklist",
  "sub.pause": "sub.cancel",
  "sub.resume": "sub.cancel",
};
const producerKey = (name: string) =>
  SHARED[name] ?? name.replace(/BySig$/, "").replace(/^(escrow|vault|pool)\.(un)?pause$/, "$1.pause");

class Model {
  now = 0n;
  runs: RunM[] = []; // index = runId - 1
  agents = new Map<bigint, AgentM>();
  balances = new Map<Address, bigint>();
  escrowCredits = new Map<Address, bigint>();
  vaultCredits = new Map<Address, bigint>();
  blacklisted = new Set<Address>();
  fees = 0n;
  /** Payments that became credits (coverage statistics). */
  deferred = 0;
  slashBps = 5000n;
  slashWindow = { start: 0n, used: 0 };
  feeBps = 500n;
  /** Governance parameters the fuzz changes (StakeVault.minStake, RunEscrow.claimTimeout). */
  minStake = MIN_STAKE;
  claimTimeout = TIMEOUT;
  /** RunEscrow's review and dispute windows and minimum reward (governance). */
  reviewWindow = REVIEW;
  disputeWindow = DISPUTE;
  minReward = MIN_REWARD;
  /** RunEscrow's bound on a new run's cover, in basis points of its reward (governance). */
  maxCoverBps = 100_000n;
  /** Emergency pauses (PAUSER_ROLE). */
  paused = { escrow: false, vault: false, pool: false };
  /** InsurancePool: coverage per agent; RunEscrow: cover per run (fixed at funding); insurance paid per run (once). */
  coverage = new Map<bigint, bigint>();
  covers = new Map<bigint, bigint>();
  insured = new Map<bigint, bigint>();
  /** SubscriptionVault subscriptions (index = id - 1). */
  subs: SubM[] = [];
  constructor(
    readonly escrow: Address,
    readonly vault: Address,
    readonly pool: Address,
    readonly treasury: Address,
    readonly relayer: Address,
    readonly admin: Address,
  ) {}
  bal(a: Address) {
    return this.balances.get(lc(a)) ?? 0n;
  }
  move(from: Address, to: Address, amount: bigint) {
    this.balances.set(lc(from), this.bal(from) - amount);
    this.balances.set(lc(to), this.bal(to) + amount);
  }
  isBlacklisted(a: Address) {
    return this.blacklisted.has(lc(a));
  }
  run(id: bigint) {
    return this.runs[Number(id) - 1];
  }
  agent(id: bigint) {
    const a = this.agents.get(id);
    if (!a) throw new Error(`unknown agent ${id} in model`);
    return a;
  }
  held() {
    return this.runs.filter((r) => LIVE.has(r.state)).reduce((s, r) => s + r.reward + r.fee, 0n);
  }
  credits(map: Map<Address, bigint>) {
    return [...map.values()].reduce((s, x) => s + x, 0n);
  }
  rewards() {
    return [...this.agents.values()].reduce((s, a) => s + a.rewards, 0n);
  }
  owed() {
    return this.held() + this.fees + this.rewards() + this.credits(this.escrowCredits);
  }
  staked() {
    return [...this.agents.values()].reduce((s, a) => s + a.stake, 0n);
  }
  /** The escrow pays `to`, or credits it when the token refuses (blacklisted). */
  escrowPay(to: Address, amount: bigint) {
    if (this.isBlacklisted(to)) {
      this.escrowCredits.set(lc(to), (this.escrowCredits.get(lc(to)) ?? 0n) + amount);
      this.deferred++;
    } else this.move(this.escrow, to, amount);
  }
  /** Slashes `bps` of the agent's whole stake to `beneficiary` (credited if blacklisted); counts a strike. */
  slash(agentId: bigint, bps: bigint, beneficiary: Address) {
    const a = this.agent(agentId);
    const amount = (a.stake * bps) / 10_000n;
    a.stake -= amount;
    if (a.pending > a.stake) {
      a.pending = a.stake;
      if (a.stake === 0n) a.availableAt = 0n;
    }
    a.strikes = Math.min(a.strikes + 1, 255);
    a.trust = a.trust === Trust.Banned || a.strikes >= BAN_AFTER_STRIKES ? Trust.Banned : Trust.Frozen;
    if (amount > 0n) {
      if (this.isBlacklisted(beneficiary)) {
        this.vaultCredits.set(lc(beneficiary), (this.vaultCredits.get(lc(beneficiary)) ?? 0n) + amount);
        this.deferred++;
      } else this.move(this.vault, beneficiary, amount);
    }
    return amount;
  }
  /** The run completes: reward added to the agent's rewards, fee accrued, lock released. */
  complete(r: RunM) {
    const a = this.agent(r.agentId);
    r.state = S.Completed;
    this.fees += r.fee;
    a.locks--;
    a.rewards += r.reward;
  }
  /** payRewards: each named agent's rewards to its current owner (or credited); returns the total. */
  payRewards(agentIds: bigint[]) {
    let total = 0n;
    for (const id of agentIds) {
      const a = this.agents.get(id);
      if (!a || a.rewards === 0n) continue;
      total += a.rewards;
      this.escrowPay(a.owner, a.rewards);
      a.rewards = 0n;
    }
    return total;
  }
}

/** Error name carried by a failed viem write (walks the cause chain for revert data). */
function errorName(e: unknown, abi: Abi): string {
  let cur = e as { data?: unknown; cause?: unknown; message?: string } | undefined;
  let data: Hex | undefined;
  while (cur) {
    if (typeof cur.data === "string" && cur.data.startsWith("0x")) data = cur.data as Hex;
    cur = cur.cause as typeof cur;
  }
  if (!data) return `no revert data: ${(e as Error).message?.split("\n")[0]}`;
  try {
    return decodeErrorResult({ abi, data }).errorName;
  } catch {
    return `undecoded ${data}`;
  }
}

describe("escrow + vault invariants (model-based fuzz)", () => {
  it(`${SEQUENCES} random action sequences keep chain == model and the accounting invariants`, async function () {
    this.timeout(900_000);
    console.log(`      fuzz seed: ${BASE_SEED} (FUZZ_SEED=${BASE_SEED} to reproduce), ${SEQUENCES} sequences`);
    const stats = new Map<string, { ok: number; err: number }>();
    let steps = 0;
    for (let seq = 0; seq < SEQUENCES; seq++) {
      const seed = BASE_SEED + seq;
      const log: string[] = [];
      try {
        steps += await runSequence(seed, log, stats);
      } catch (e) {
        console.log(
          `\n      FAILED sequence seed ${seed} (base ${BASE_SEED}, sequence ${seq}); actions:\n        ${log.join("\n        ")}`,
        );
        throw e;
      }
    }
    const summary = [...stats.entries()]
      .sort()
      .map(([k, v]) => `${k} ${v.ok}/${v.err}`)
      .join(", ");
    console.log(`      ${steps} steps; action ok/expected-revert: ${summary}`);
    // Every action must have succeeded at least once over the run (a model that only predicts reverts proves little).
    if (SEQUENCES >= 100) {
      for (const name of REQUIRED) assert.ok((stats.get(name)?.ok ?? 0) > 0, `${name} never succeeded`);
      const settled =
        (stats.get("settle.escrow.withdrawCredit")?.ok ?? 0) + (stats.get("settle.vault.withdrawCredit")?.ok ?? 0);
      assert.ok(settled > 0, "no credit was ever settled");
      const insured = (stats.get("pool.claim")?.ok ?? 0) + (stats.get("settle.pool.claim")?.ok ?? 0);
      assert.ok(insured > 0, "no insurance claim ever paid");
    }
  });
});

async function runSequence(seed: number, log: string[], stats: Map<string, { ok: number; err: number }>) {
  const fx = await networkHelpers.loadFixture(fuzzSetup);
  const { escrow, vault, pool, usdc, identity, publicClient, wallets, posters, owners, stranger } = fx;
  const { subs } = fx;
  const abi = [...escrow.abi, ...vault.abi, ...pool.abi, ...subs.abi, ...usdc.abi, ...identity.abi] as Abi;
  const rnd = prng(seed);
  const m = new Model(
    escrow.address,
    vault.address,
    pool.address,
    wallets.treasury.account.address,
    wallets.relayer.account.address,
    wallets.admin.account.address,
  );
  m.now = (await publicClient.getBlock()).timestamp;
  const everyone = [...posters, ...owners, stranger, wallets.treasury, wallets.relayer, wallets.admin];
  for (const w of everyone) m.balances.set(lc(w.account.address), await usdc.read.balanceOf([w.account.address]));
  m.balances.set(lc(escrow.address), 0n);
  m.balances.set(lc(vault.address), await usdc.read.balanceOf([vault.address]));
  m.balances.set(lc(pool.address), await usdc.read.balanceOf([pool.address]));
  m.balances.set(lc(subs.address), 0n);
  for (let i = 0; i < owners.length; i++) {
    const id = BigInt(i + 1);
    m.agents.set(id, {
      owner: lc(owners[i]!.account.address),
      stake: await vault.read.stakeOf([id]),
      pending: 0n,
      availableAt: 0n,
      locks: 0,
      rewards: 0n,
      strikes: 0,
      trust: Trust.Good,
    });
    m.coverage.set(id, await pool.read.coverageOf([id]));
  }
  const walletOf = (a: Address) => everyone.find((w) => lc(w.account.address) === lc(a))!;

  /** The action (index in `actions`) that runs now, -1 while settling. */
  let current = -1;
  /** Sends a transaction at the next model timestamp and checks the predicted outcome. */
  const exec = async (label: string, send: () => Promise<Hex>, expected: string | null) => {
    m.now += 1n;
    await networkHelpers.time.setNextBlockTimestamp(m.now);
    let got: string | null = null;
    try {
      const hash = await send();
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== "success") got = "reverted";
    } catch (e) {
      got = errorName(e, abi);
    }
    log.push(`${label} -> ${got ?? "ok"}`);
    assert.equal(got, expected, `${label}: expected ${expected ?? "success"}, got ${got ?? "success"}`);
    const name = process.env.FUZZ_VERBOSE ? `${label.split("(")[0]}:${got ?? "ok"}` : label.split("(")[0]!;
    if (current >= 0 && !label.startsWith("settle.")) producers.set(producerKey(name), current);
    const st = stats.get(name) ?? { ok: 0, err: 0 };
    if (got === null) st.ok++;
    else st.err++;
    stats.set(name, st);
    return got === null;
  };

  /**
   * Coverage by construction: while an action has never succeeded, the scheduler now and then drives it when it is
   * ready (its state reached) with `steer` naming the variant wanted; the helpers below then take the happy path
   * (the right party, directly or through the relayer with a valid consent, a run in the right state).
   */
  let steer: string | null = null;
  const steerBySig = () => steer?.endsWith("BySig") === true;
  const isRelayer = (w: Wallet) => lc(w.account.address) === lc(m.relayer);
  const isAdmin = (w: Wallet) => lc(w.account.address) === lc(m.admin);
  const posterSide = (r: RunM | null) =>
    steer && r
      ? steerBySig()
        ? wallets.relayer
        : walletOf(r.poster)
      : rnd.next() < 0.9 && r
        ? rnd.next() < 0.5
          ? walletOf(r.poster)
          : wallets.relayer
        : rnd.pick([stranger, ...owners]);
  const agentSide = (agentId: bigint) =>
    steer
      ? steerBySig()
        ? wallets.relayer
        : walletOf(m.agent(agentId).owner)
      : rnd.next() < 0.9
        ? rnd.next() < 0.5
          ? walletOf(m.agent(agentId).owner)
          : wallets.relayer
        : rnd.pick([stranger, ...posters]);
  /** Consents the escrow accepted, per `${action}:${runId}`: replaying one must fail. */
  const spent = new Map<string, Consent>();
  /**
   * How the relayer acts this time: null = it calls the direct function (refused: it is not the party), else a
   * consent for `action` and the error the escrow must give once its run/state checks pass (null = accepted).
   */
  const relayedConsent = async (
    action: RunConsentAction,
    id: bigint,
    party: Address | undefined,
    agentId: bigint,
    deliverableHash: Hex,
  ): Promise<{ consent: Consent; error: string | null; key: string } | null> => {
    if (!steer && rnd.next() < 0.2) return null;
    const key = `${action}:${id}`;
    const roll = steer ? 1 : rnd.next();
    const replay = spent.get(key);
    if (roll < 0.1 && replay) {
      // The escrow checks the signer first: the run's party may have changed since (another agent, a new owner).
      const error =
        party?.toLowerCase() !== replay.signer.toLowerCase()
          ? "RunEscrowWrongSigner"
          : m.now + 1n > replay.deadline
            ? "RunEscrowConsentExpired"
            : "InvalidAccountNonce";
      return { consent: replay, error, key };
    }
    const signerWallet = party ? walletOf(party) : stranger;
    // A claim carries the run's terms as the escrow holds them, cover included (every other action: none).
    const r = known(id);
    const terms =
      action === "claim" && r
        ? {
            poster: r.poster,
            reward: r.reward,
            deadline: r.deadline,
            maxRevisions: BigInt(r.maxRevisions),
            cover: m.covers.get(id) ?? 0n,
          }
        : undefined;
    const sign = async (
      by: Wallet,
      claimed: Address,
      deadline: bigint,
      runId = id,
      signed = terms,
    ): Promise<Consent> => {
      const nonce = await escrow.read.nonces([claimed, consentNonceKey(runId)]);
      const typed = runConsentTypedData({
        escrow: escrow.address,
        chainId: CHAIN_ID,
        action,
        runId,
        agentId,
        deliverableHash,
        terms: signed,
        nonce,
        deadline,
      });
      const signature = await by.signTypedData({ account: by.account, ...typed });
      return { signer: claimed, nonce, deadline, signature };
    };
    const later = m.now + 1n + rnd.bigint(0n, 3n * DAY);
    if (roll < 0.2) {
      const c = await sign(stranger, stranger.account.address, later);
      return { consent: c, error: "RunEscrowWrongSigner", key };
    }
    if (roll < 0.3) {
      const c = await sign(signerWallet, signerWallet.account.address, m.now - rnd.bigint(0n, 100n));
      return { consent: c, error: party ? "RunEscrowConsentExpired" : "RunEscrowWrongSigner", key };
    }
    if (roll < 0.4) {
      const c = await sign(stranger, signerWallet.account.address, later);
      return { consent: c, error: party ? "RunEscrowInvalidConsent" : "RunEscrowWrongSigner", key };
    }
    if (roll < 0.45) {
      const c = await sign(signerWallet, signerWallet.account.address, later, id + 1n);
      return { consent: c, error: party ? "RunEscrowInvalidConsent" : "RunEscrowWrongSigner", key };
    }
    if (roll < 0.5 && terms) {
      // The agent agreed to a smaller cover (or another reward) than the run has: the consent is void.
      const other = rnd.next() < 0.5 ? { ...terms, cover: terms.cover + 1n } : { ...terms, reward: terms.reward - 1n };
      const c = await sign(signerWallet, signerWallet.account.address, later, id, other);
      return { consent: c, error: party ? "RunEscrowInvalidConsent" : "RunEscrowWrongSigner", key };
    }
    const c = await sign(signerWallet, signerWallet.account.address, later);
    return { consent: c, error: party ? null : "RunEscrowWrongSigner", key };
  };
  const posterConsent = (action: RunConsentAction, id: bigint, r: RunM | null, caller: Wallet) =>
    isRelayer(caller)
      ? relayedConsent(action, id, r?.poster, r?.agentId ?? 0n, r?.deliverableHash ?? zeroHash)
      : Promise.resolve(null);
  const pickRun = (states: S[], good: (r: RunM) => boolean = () => true): bigint => {
    const inState = m.runs.map((r, i) => ({ r, id: BigInt(i + 1) })).filter(({ r }) => states.includes(r.state));
    const fitting = inState.filter(({ r }) => good(r));
    const candidates = steer && fitting.length > 0 ? fitting : inState;
    const roll = steer ? 0 : rnd.next();
    if (candidates.length > 0 && roll < 0.9) return rnd.pick(candidates).id;
    if (m.runs.length > 0 && roll < 0.95) return BigInt(rnd.int(m.runs.length) + 1);
    return BigInt(m.runs.length + 1 + rnd.int(2)) * (rnd.next() < 0.5 ? 1n : 0n); // unknown (or id 0)
  };
  /** Shared prefix checks: unknown run. */
  const known = (id: bigint) => (id === 0n || id > BigInt(m.runs.length) ? null : m.run(id)!);
  /** The poster's review window on a submission is over at the next block. */
  const reviewOver = (r: RunM) => m.now + 1n >= r.since + m.reviewWindow;
  /** When a claimed run, or one waiting on a revision, may be timed out. */
  const dueAt = (r: RunM) => (r.state === S.RevisionRequested ? r.since : r.claimedAt) + m.claimTimeout;
  const timedOut = (r: RunM) => m.now + 1n >= dueAt(r);
  /** The arbiter's dispute window is over at the next block. */
  const disputeOver = (r: RunM) => m.now + 1n >= r.since + m.disputeWindow;
  /** The vault's lock check at claim time (after the escrow's own checks). */
  const lockError = (a: AgentM) =>
    a.trust === Trust.Frozen
      ? "StakeVaultAgentFrozen"
      : a.trust === Trust.Banned
        ? "StakeVaultAgentBanned"
        : a.stake - a.pending < m.minStake
          ? "StakeVaultInsufficientStake"
          : null;
  /** Ends the lock of a run whose agent failed by its fault: slash to the poster, failure recorded. */
  const failByFault = (r: RunM, kind: Fail) => {
    const a = m.agent(r.agentId);
    a.locks--;
    const slashed = m.slash(r.agentId, m.slashBps, r.poster);
    r.failure = [r.agentId, kind, slashed];
  };

  /** A subscription that can still fund runs or be topped up (active or paused). */
  const liveSub = (x: SubM) => x.status === SubStatus.Active || x.status === SubStatus.Paused;
  /** One run of `x` at the escrow's current fee rate (as the vault prices it). */
  const subCost = (x: SubM) => x.rewardPerRun + feeOf(x.rewardPerRun, m.feeBps);
  /** A run of `x` can be triggered at the next block. */
  const subDue = (x: SubM) => x.status === SubStatus.Active && m.now + 1n >= x.nextRunAt && x.balance >= subCost(x);
  /** What is left of `x` goes back to its subscriber. */
  const refundSub = (x: SubM) => {
    m.move(subs.address, x.subscriber, x.balance);
    x.refunded += x.balance;
    x.balance = 0n;
  };
  /** A dispute ends by its default: reward + fee back to the poster, the agent's lock released, nothing recorded. */
  const expireDispute = (r: RunM) => {
    r.state = S.DisputeExpired;
    m.agent(r.agentId).locks--;
    m.escrowPay(r.poster, r.reward + r.fee);
  };

  /** `caller` pauses (or unpauses) the escrow, the vault or the insurance pool. */
  const setPaused = (target: keyof Model["paused"], on: boolean, caller: Wallet) => {
    const opts = { account: caller.account, gas: GAS };
    if (target === "escrow") return on ? escrow.write.pause(opts) : escrow.write.unpause(opts);
    if (target === "vault") return on ? vault.write.pause(opts) : vault.write.unpause(opts);
    return on ? pool.write.pause(opts) : pool.write.unpause(opts);
  };
  /** A `whenNotPaused` function of `contract` reverts with EnforcedPause before any of its own checks. */
  const gate = (contract: keyof Model["paused"], expected: string | null) =>
    m.paused[contract] ? "EnforcedPause" : expected;
  /** Escrow paths that slash through StakeVault.slashForRun: refused by a paused vault once the escrow's checks pass. */
  const slashGate = (expected: string | null) => expected ?? (m.paused.vault ? "EnforcedPause" : null);

  /** Whether the poster's insurance claim for run `id` pays something now. */
  const insurancePays = (id: bigint, r: RunM) => {
    const [agentId, kind, slashed] = r.failure;
    const cover = m.covers.get(id) ?? 0n;
    return (
      (kind === Fail.TimedOut || kind === Fail.DisputeLost) &&
      !m.insured.has(id) &&
      cover > slashed &&
      (m.coverage.get(agentId) ?? 0n) > 0n &&
      !m.isBlacklisted(r.poster) &&
      !m.paused.pool
    );
  };
  /** InsurancePool.claim(id) by `caller`: the outcome the model predicts, and its effect when it succeeds. */
  const insuranceClaim = async (label: string, id: bigint, caller: Wallet) => {
    const r = known(id);
    const [agentId, kind, slashed] = r?.failure ?? [0n, Fail.None, 0n];
    const cover = m.covers.get(id) ?? 0n;
    const coverage = m.coverage.get(agentId) ?? 0n;
    let expected: string | null = null;
    if (agentId === 0n) expected = "InsurancePoolNoFailure";
    else if (kind !== Fail.TimedOut && kind !== Fail.DisputeLost) expected = "InsurancePoolLossNotVerified";
    else if (!isRelayer(caller) && lc(caller.account.address) !== r!.poster) expected = "InsurancePoolUnauthorized";
    else if (m.insured.has(id)) expected = "InsurancePoolAlreadyClaimed";
    else if (cover === 0n) expected = "InsurancePoolNoCoverDeclared";
    else if (slashed >= cover) expected = "InsurancePoolNoLoss";
    else if (coverage === 0n) expected = "InsurancePoolNoCoverage";
    else if (m.isBlacklisted(r!.poster)) expected = "Blacklisted";
    expected = gate("pool", expected);
    if (await exec(`${label}(${id})`, () => pool.write.claim([id], { account: caller.account, gas: GAS }), expected)) {
      const loss = cover - slashed;
      const paid = loss < coverage ? loss : coverage;
      m.coverage.set(agentId, coverage - paid);
      m.insured.set(id, paid);
      m.move(pool.address, r!.poster, paid);
    }
  };

  const has =
    (...states: S[]) =>
    () =>
      m.runs.some((r) => states.includes(r.state));
  const always = () => true;
  const live = () => m.runs.filter((r) => LIVE.has(r.state)).length;
  // Who may be blacklisted: posters, agent owners and the treasury (moderation slashes then become vault credits).
  const payees = [...posters, ...owners, wallets.treasury];
  /** An exit anyone may call once a window has passed (the poster's review, the arbiter's dispute). */
  const anyoneEnds = (
    state: S,
    over: (r: RunM) => boolean,
    fn: "releaseAfterReview" | "expireDispute",
    apply: (r: RunM) => void,
  ): [() => number, () => boolean, () => Promise<void>] => [
    () => (m.runs.some((r) => r.state === state && over(r)) ? 8 : 1),
    has(state),
    async () => {
      const id = pickRun([state], over);
      const r = known(id);
      const caller = rnd.pick([stranger, wallets.relayer, ...owners, ...posters]);
      let expected: string | null = null;
      if (!r) expected = "RunEscrowUnknownRun";
      else if (r.state !== state) expected = "RunEscrowInvalidState";
      else if (!over(r)) expected = "RunEscrowTimeoutNotReached";
      expected = gate("escrow", expected);
      if (await exec(`${fn}(${id})`, () => escrow.write[fn]([id], { account: caller.account, gas: GAS }), expected)) {
        apply(r!);
      }
    },
  ];
  const actions: Array<[() => number, () => boolean, () => Promise<void>]> = [
    // createRun
    [
      () => (live() < 2 ? 12 : 3),
      always,
      async () => {
        const payers = posters.filter((w) => !m.isBlacklisted(w.account.address));
        const p = steer && payers.length > 0 ? payers[0]! : rnd.pick(posters);
        const caller = steer
          ? steer === "createRun"
            ? p
            : wallets.relayer
          : rnd.next() < 0.9
            ? rnd.next() < 0.5
              ? p
              : wallets.relayer
            : stranger;
        // Rewards: zero, a few base units (below the minimum unless governance lowered it), around the minimum, usual.
        const roll = steer ? 1 : rnd.next();
        const reward =
          roll < 0.05
            ? 0n
            : roll < 0.15
              ? rnd.bigint(1n, 19n)
              : roll < 0.2
                ? rnd.bigint(9_990n, 10_010n)
                : rnd.bigint(1_000_000n, 100_000_000n);
        const deadline = !steer && rnd.next() < 0.1 ? m.now - rnd.bigint(0n, 100n) : m.now + rnd.bigint(60n, 15n * DAY);
        const maxRevisions = rnd.int(3);
        // Agreed damages, a term fixed at funding: none, within the governance bound (a multiple of the reward), or
        // above it (refused).
        const bound = (reward * m.maxCoverBps) / 10_000n;
        const coverRoll = steer ? 0 : rnd.next();
        const cover =
          coverRoll < 0.4
            ? 0n
            : coverRoll < 0.9 || bound === 0n
              ? rnd.bigint(bound === 0n ? 0n : 1n, bound)
              : bound + rnd.bigint(1n, 10n ** 12n);
        const next = BigInt(m.runs.length + 1);
        const terms = `(${next}, reward ${reward}, deadline +${deadline - m.now - 1n}s, maxRev ${maxRevisions}, cover ${cover}, by ${caller.account.address.slice(0, 6)})`;
        // The relayer funds only with the poster's EIP-3009 authorization bound to the terms; most of the time it
        // submits a good one, else it tampers with a term the poster signed (refused by the token's signature
        // check) or tries createRun (the caller is the poster: it can only pull its own allowance, which it lacks).
        const viaAuthorization = isRelayer(caller) && (steer !== null || rnd.next() < 0.8);
        let expected: string | null = null;
        let ok: boolean;
        if (viaAuthorization) {
          const tamper = !steer && rnd.next() < 0.25;
          const value = reward + feeOf(reward, m.feeBps);
          const validBefore = m.now + 3600n;
          const typed = runFundingTypedData({
            token: { address: usdc.address, name: "USDC", version: "2" },
            chainId: CHAIN_ID,
            escrow: escrow.address,
            terms: {
              poster: p.account.address,
              reward,
              deadline,
              maxRevisions: tamper ? (maxRevisions + 1) % 3 : maxRevisions,
              cover,
              metadataUri: "ipfs://run",
            },
            value,
            validBefore,
          });
          const signature = await p.signTypedData({ account: p.account, ...typed });
          if (m.paused.escrow) expected = "EnforcedPause";
          else if (reward === 0n) expected = "RunEscrowZeroReward";
          else if (reward < m.minReward) expected = "RunEscrowRewardTooLow";
          else if (deadline <= m.now + 1n) expected = "RunEscrowDeadlinePassed";
          else if (cover > bound) expected = "RunEscrowCoverTooHigh";
          else if (tamper) expected = "ERC3009InvalidSignature";
          else if (m.isBlacklisted(p.account.address)) expected = "Blacklisted";
          ok = await exec(
            `createRunWithAuthorization${terms}${tamper ? " tampered" : ""}`,
            () =>
              escrow.write.createRunWithAuthorization(
                [p.account.address, reward, deadline, maxRevisions, cover, "ipfs://run", validBefore, signature],
                { account: caller.account, gas: GAS },
              ),
            expected,
          );
        } else {
          if (m.paused.escrow) expected = "EnforcedPause";
          else if (reward === 0n) expected = "RunEscrowZeroReward";
          else if (reward < m.minReward) expected = "RunEscrowRewardTooLow";
          else if (deadline <= m.now + 1n) expected = "RunEscrowDeadlinePassed";
          else if (cover > bound) expected = "RunEscrowCoverTooHigh";
          else if (lc(caller.account.address) !== lc(p.account.address)) expected = "ERC20InsufficientAllowance";
          else if (m.isBlacklisted(p.account.address)) expected = "Blacklisted";
          ok = await exec(
            `createRun${terms}`,
            () =>
              escrow.write.createRun([reward, deadline, maxRevisions, cover, "ipfs://run"], {
                account: caller.account,
                gas: GAS,
              }),
            expected,
          );
        }
        if (ok) {
          const fee = feeOf(reward, m.feeBps);
          m.runs.push({
            poster: lc(p.account.address),
            reward,
            fee,
            deadline,
            maxRevisions,
            revisions: 0,
            state: S.Open,
            agentId: 0n,
            claimedAt: 0n,
            since: 0n,
            deliverableHash: zeroHash,
            failure: [0n, Fail.None, 0n],
          });
          m.move(p.account.address, escrow.address, reward + fee);
          if (cover > 0n) m.covers.set(next, cover);
        }
      },
    ],
    // cancel
    [
      () => 3,
      has(S.Open),
      async () => {
        const id = pickRun([S.Open]);
        const r = known(id);
        const caller = posterSide(r);
        const sig = isRelayer(caller)
          ? await relayedConsent("cancel", id, r?.poster, r?.agentId ?? 0n, r?.deliverableHash ?? zeroHash)
          : null;
        let expected: string | null = null;
        if (!r) expected = "RunEscrowUnknownRun";
        else if (sig) expected = r.state !== S.Open ? "RunEscrowInvalidState" : sig.error;
        else if (lc(caller.account.address) !== r.poster) expected = "RunEscrowUnauthorized";
        else if (r.state !== S.Open) expected = "RunEscrowInvalidState";
        expected = gate("escrow", expected);
        if (
          await exec(
            `cancel${sig ? "BySig" : ""}(${id})`,
            () =>
              sig
                ? escrow.write.cancelBySig([id, sig.consent], { account: caller.account, gas: GAS })
                : escrow.write.cancel([id], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          if (sig) spent.set(sig.key, sig.consent);
          r!.state = S.Cancelled;
          m.escrowPay(r!.poster, r!.reward + r!.fee);
        }
      },
    ],
    // claim
    [
      () => 14,
      has(S.Open),
      async () => {
        const id = pickRun([S.Open], (r) => m.now + 1n <= r.deadline);
        const r = known(id);
        const staked = [...m.agents.entries()].filter(([, x]) => lockError(x) === null).map(([id]) => id);
        const agentId = staked.length > 0 && (steer || rnd.next() < 0.8) ? rnd.pick(staked) : BigInt(rnd.int(3) + 1);
        const caller = agentSide(agentId);
        const a = m.agent(agentId);
        const sig = isRelayer(caller) ? await relayedConsent("claim", id, a.owner, agentId, zeroHash) : null;
        let expected: string | null = null;
        if (!r) expected = "RunEscrowUnknownRun";
        else if (r.state !== S.Open) expected = "RunEscrowInvalidState";
        else if (m.now + 1n > r.deadline) expected = "RunEscrowDeadlinePassed";
        else if (sig?.error) expected = sig.error;
        else if (!sig && lc(caller.account.address) !== a.owner) expected = "RunEscrowUnauthorized";
        else expected = lockError(a);
        expected = gate("escrow", expected);
        if (
          await exec(
            `claim${sig ? "BySig" : ""}(${id}, agent ${agentId})`,
            () =>
              sig
                ? escrow.write.claimBySig([id, agentId, sig.consent], { account: caller.account, gas: GAS })
                : escrow.write.claim([id, agentId], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          if (sig) spent.set(sig.key, sig.consent);
          r!.state = S.Claimed;
          r!.agentId = agentId;
          r!.claimedAt = m.now;
          a.locks++;
        }
      },
    ],
    // start
    [
      () => 5,
      has(S.Claimed),
      async () => {
        const id = pickRun([S.Claimed]);
        const r = known(id);
        const caller = r && r.agentId !== 0n ? agentSide(r.agentId) : rnd.pick([stranger, wallets.relayer]);
        const owner = r && r.agentId !== 0n ? m.agent(r.agentId).owner : undefined;
        const sig = isRelayer(caller) ? await relayedConsent("start", id, owner, r?.agentId ?? 0n, zeroHash) : null;
        let expected: string | null = null;
        if (!r) expected = "RunEscrowUnknownRun";
        else if (r.state !== S.Claimed) expected = "RunEscrowInvalidState";
        else if (sig) expected = sig.error;
        else if (lc(caller.account.address) !== owner) expected = "RunEscrowUnauthorized";
        if (
          await exec(
            `start${sig ? "BySig" : ""}(${id})`,
            () =>
              sig
                ? escrow.write.startBySig([id, sig.consent], { account: caller.account, gas: GAS })
                : escrow.write.start([id], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          if (sig) spent.set(sig.key, sig.consent);
          r!.state = S.InProgress;
        }
      },
    ],
    // submit
    [
      () => 12,
      has(S.Claimed, S.InProgress, S.RevisionRequested),
      async () => {
        const id = pickRun([S.Claimed, S.InProgress, S.RevisionRequested]);
        const r = known(id);
        const caller = r && r.agentId !== 0n ? agentSide(r.agentId) : rnd.pick([stranger, wallets.relayer]);
        // Sometimes the same hash again: a replayed submit consent then differs only by its spent nonce.
        const hash = rnd.next() < 0.3 ? bytes32(`deliverable-${seed}-${id}`) : bytes32(`deliverable-${seed}-${m.now}`);
        const owner = r && r.agentId !== 0n ? m.agent(r.agentId).owner : undefined;
        const sig = isRelayer(caller) ? await relayedConsent("submit", id, owner, r?.agentId ?? 0n, hash) : null;
        let expected: string | null = null;
        if (!r) expected = "RunEscrowUnknownRun";
        else if (![S.Claimed, S.InProgress, S.RevisionRequested].includes(r.state)) expected = "RunEscrowInvalidState";
        else if (sig) expected = sig.error;
        else if (lc(caller.account.address) !== owner) expected = "RunEscrowUnauthorized";
        if (
          await exec(
            `submit${sig ? "BySig" : ""}(${id})`,
            () =>
              sig
                ? escrow.write.submitBySig([id, hash, sig.consent], { account: caller.account, gas: GAS })
                : escrow.write.submit([id, hash], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          if (sig) spent.set(sig.key, sig.consent);
          r!.state = S.Submitted;
          r!.deliverableHash = hash;
          r!.since = m.now;
        }
      },
    ],
    // approve
    [
      () => 8,
      has(S.Submitted),
      async () => {
        const id = pickRun([S.Submitted]);
        const r = known(id);
        const caller = posterSide(r);
        const sig = await posterConsent("approve", id, r, caller);
        let expected: string | null = null;
        if (!r) expected = "RunEscrowUnknownRun";
        else if (sig) expected = r.state !== S.Submitted ? "RunEscrowInvalidState" : sig.error;
        else if (lc(caller.account.address) !== r.poster) expected = "RunEscrowUnauthorized";
        else if (r.state !== S.Submitted) expected = "RunEscrowInvalidState";
        expected = gate("escrow", expected);
        if (
          await exec(
            `approve${sig ? "BySig" : ""}(${id})`,
            () =>
              sig
                ? escrow.write.approveBySig([id, sig.consent], { account: caller.account, gas: GAS })
                : escrow.write.approve([id], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          if (sig) spent.set(sig.key, sig.consent);
          m.complete(r!);
        }
      },
    ],
    // requestRevision
    [
      () => 6,
      has(S.Submitted),
      async () => {
        const id = pickRun([S.Submitted], (r) => r.revisions < r.maxRevisions && !reviewOver(r));
        const r = known(id);
        const caller = posterSide(r);
        const sig = await posterConsent("requestRevision", id, r, caller);
        let expected: string | null = null;
        if (!r) expected = "RunEscrowUnknownRun";
        else if (sig) {
          if (r.state !== S.Submitted) expected = "RunEscrowInvalidState";
          else if (sig.error) expected = sig.error;
          else if (reviewOver(r)) expected = "RunEscrowReviewWindowOver";
          else if (r.revisions >= r.maxRevisions) expected = "RunEscrowRevisionsExhausted";
        } else if (lc(caller.account.address) !== r.poster) expected = "RunEscrowUnauthorized";
        else if (r.state !== S.Submitted) expected = "RunEscrowInvalidState";
        else if (reviewOver(r)) expected = "RunEscrowReviewWindowOver";
        else if (r.revisions >= r.maxRevisions) expected = "RunEscrowRevisionsExhausted";
        if (
          await exec(
            `requestRevision${sig ? "BySig" : ""}(${id})`,
            () =>
              sig
                ? escrow.write.requestRevisionBySig([id, sig.consent], { account: caller.account, gas: GAS })
                : escrow.write.requestRevision([id], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          if (sig) spent.set(sig.key, sig.consent);
          r!.state = S.RevisionRequested;
          r!.revisions++;
          r!.since = m.now;
        }
      },
    ],
    // reject (likelier once a submission has used up its revisions: the only state where it succeeds)
    [
      () => (m.runs.some((r) => r.state === S.Submitted && r.revisions >= r.maxRevisions) ? 10 : 4),
      has(S.Submitted),
      async () => {
        const id = pickRun([S.Submitted], (r) => r.revisions >= r.maxRevisions && !reviewOver(r));
        const r = known(id);
        const caller = posterSide(r);
        const sig = await posterConsent("reject", id, r, caller);
        let expected: string | null = null;
        if (!r) expected = "RunEscrowUnknownRun";
        else if (sig) {
          if (r.state !== S.Submitted) expected = "RunEscrowInvalidState";
          else if (sig.error) expected = sig.error;
          else if (reviewOver(r)) expected = "RunEscrowReviewWindowOver";
          else if (r.revisions < r.maxRevisions) expected = "RunEscrowRevisionsRemaining";
        } else if (lc(caller.account.address) !== r.poster) expected = "RunEscrowUnauthorized";
        else if (r.state !== S.Submitted) expected = "RunEscrowInvalidState";
        else if (reviewOver(r)) expected = "RunEscrowReviewWindowOver";
        else if (r.revisions < r.maxRevisions) expected = "RunEscrowRevisionsRemaining";
        expected = gate("escrow", expected);
        if (
          await exec(
            `reject${sig ? "BySig" : ""}(${id})`,
            () =>
              sig
                ? escrow.write.rejectBySig([id, sig.consent], { account: caller.account, gas: GAS })
                : escrow.write.reject([id], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          if (sig) spent.set(sig.key, sig.consent);
          r!.state = S.Rejected;
          r!.failure = [r!.agentId, Fail.Rejected, 0n];
          m.agent(r!.agentId).locks--;
          m.escrowPay(r!.poster, r!.reward + r!.fee);
        }
      },
    ],
    // dispute
    [
      () => 6,
      has(S.Submitted, S.RevisionRequested),
      async () => {
        const id = pickRun([S.Submitted, S.RevisionRequested], (r) => r.state !== S.Submitted || !reviewOver(r));
        const r = known(id);
        const steered = r && steer ? (steerBySig() ? wallets.relayer : walletOf(r.poster)) : null;
        const caller =
          steered ??
          rnd.pick([
            ...(r ? [walletOf(r.poster)] : []),
            ...(r && r.agentId !== 0n ? [walletOf(m.agent(r.agentId).owner)] : []),
            wallets.relayer,
            stranger,
          ]);
        const addr = lc(caller.account.address);
        // Through the relayer, the poster or the agent's owner consents.
        const party = r ? (rnd.next() < 0.5 || r.agentId === 0n ? r.poster : m.agent(r.agentId).owner) : undefined;
        const sig = isRelayer(caller)
          ? await relayedConsent("dispute", id, party, r?.agentId ?? 0n, r?.deliverableHash ?? zeroHash)
          : null;
        let expected: string | null = null;
        if (!r) expected = "RunEscrowUnknownRun";
        else if (![S.Submitted, S.RevisionRequested].includes(r.state)) expected = "RunEscrowInvalidState";
        else if (sig) expected = sig.error;
        else if (addr !== r.poster && addr !== m.agent(r.agentId).owner) expected = "RunEscrowUnauthorized";
        if (!expected && r!.state === S.Submitted && reviewOver(r!)) expected = "RunEscrowReviewWindowOver";
        if (
          await exec(
            `dispute${sig ? "BySig" : ""}(${id})`,
            () =>
              sig
                ? escrow.write.disputeBySig([id, sig.consent], { account: caller.account, gas: GAS })
                : escrow.write.dispute([id], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          if (sig) spent.set(sig.key, sig.consent);
          r!.state = S.Disputed;
          r!.since = m.now;
        }
      },
    ],
    // resolve
    [
      () => 14,
      has(S.Disputed),
      async () => {
        const id = pickRun([S.Disputed], (r) => !disputeOver(r));
        const r = known(id);
        const forAgent = rnd.next() < 0.5;
        const caller = steer || rnd.next() < 0.9 ? wallets.admin : rnd.pick([stranger, wallets.relayer]);
        let expected: string | null = null;
        if (!isAdmin(caller)) expected = "RunEscrowUnauthorized";
        else if (!r) expected = "RunEscrowUnknownRun";
        else if (r.state !== S.Disputed) expected = "RunEscrowInvalidState";
        else if (disputeOver(r)) expected = "RunEscrowDisputeWindowOver";
        expected = gate("escrow", forAgent ? expected : slashGate(expected));
        if (
          await exec(
            `resolve(${id}, forAgent ${forAgent})`,
            () => escrow.write.resolve([id, forAgent], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          if (forAgent) {
            m.complete(r!);
          } else {
            failByFault(r!, Fail.DisputeLost);
            Object.assign(r!, {
              state: S.Open,
              agentId: 0n,
              claimedAt: 0n,
              since: 0n,
              revisions: 0,
              deliverableHash: zeroHash,
            });
          }
        }
      },
    ],
    // timeoutSlash (claims and revision requests)
    [
      () => 6,
      has(S.Claimed, S.InProgress, S.RevisionRequested),
      async () => {
        const waiting = [S.Claimed, S.InProgress, S.RevisionRequested];
        const due = m.runs
          .map((r, i) => ({ r, id: BigInt(i + 1) }))
          .filter(({ r }) => waiting.includes(r.state) && m.now + 1n >= dueAt(r));
        const id = due.length > 0 && (steer || rnd.next() < 0.7) ? rnd.pick(due).id : pickRun(waiting);
        const r = known(id);
        const caller = posterSide(r);
        let expected: string | null = null;
        if (!r) expected = "RunEscrowUnknownRun";
        else if (lc(caller.account.address) !== r.poster && !isRelayer(caller)) expected = "RunEscrowUnauthorized";
        else if (!waiting.includes(r.state)) expected = "RunEscrowInvalidState";
        else if (m.now + 1n < dueAt(r)) expected = "RunEscrowTimeoutNotReached";
        expected = gate("escrow", slashGate(expected));
        if (
          await exec(
            `timeoutSlash(${id})`,
            () => escrow.write.timeoutSlash([id], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          r!.state = S.TimedOut;
          failByFault(r!, Fail.TimedOut);
          m.escrowPay(r!.poster, r!.reward + r!.fee);
        }
      },
    ],
    // deposit (any owner may top up any agent; ids 1..4, 4 unknown)
    [
      () => 6,
      always,
      async () => {
        const agentId = rnd.next() < 0.1 ? 4n : BigInt(rnd.int(3) + 1);
        const from = rnd.pick(owners);
        const amount =
          rnd.next() < 0.08 ? 0n : rnd.pick([rnd.bigint(1n, 5_000_000n), rnd.bigint(10_000_000n, 40_000_000n)]);
        let expected: string | null = null;
        if (amount === 0n) expected = "StakeVaultZeroAmount";
        else if (!m.agents.has(agentId)) expected = "StakeVaultUnknownAgent";
        else if (m.agent(agentId).trust === Trust.Banned) expected = "StakeVaultAgentBanned";
        else if (m.isBlacklisted(from.account.address)) expected = "Blacklisted";
        expected = gate("vault", expected);
        if (
          await exec(
            `deposit(agent ${agentId}, ${amount})`,
            () => vault.write.deposit([agentId, amount], { account: from.account, gas: GAS }),
            expected,
          )
        ) {
          const a = m.agent(agentId);
          a.stake += amount;
          if (a.trust === Trust.Frozen && a.stake - a.pending >= m.minStake) a.trust = Trust.Good;
          m.move(from.account.address, vault.address, amount);
        }
      },
    ],
    // requestWithdrawal
    [
      () => 4,
      always,
      async () => {
        const agentId = BigInt(rnd.int(3) + 1);
        const a = m.agent(agentId);
        const caller = agentSide(agentId);
        const amount =
          rnd.next() < 0.08
            ? 0n
            : rnd.pick([a.stake, a.stake / 2n, a.stake + 1n, a.stake - m.minStake, rnd.bigint(1n, m.minStake)]);
        let expected: string | null = null;
        if (amount <= 0n) expected = "StakeVaultZeroAmount";
        else if (!isRelayer(caller) && lc(caller.account.address) !== a.owner) expected = "StakeVaultUnauthorized";
        else if (a.pending !== 0n) expected = "StakeVaultWithdrawalPending";
        else if (amount > a.stake) expected = "StakeVaultInsufficientStake";
        else if (a.locks > 0 && a.stake - amount < m.minStake) expected = "StakeVaultStakeLocked";
        const asked = amount < 0n ? 0n : amount;
        if (
          await exec(
            `requestWithdrawal(agent ${agentId}, ${asked})`,
            () => vault.write.requestWithdrawal([agentId, asked], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          a.pending = asked;
          a.availableAt = m.now + COOLDOWN;
        }
      },
    ],
    // withdraw
    [
      () => 5,
      () => [...m.agents.values()].some((a) => a.pending > 0n),
      async () => {
        const pending = [...m.agents.entries()].filter(([, x]) => x.pending > 0n).map(([id]) => id);
        const agentId = pending.length > 0 && rnd.next() < 0.8 ? rnd.pick(pending) : BigInt(rnd.int(3) + 1);
        const a = m.agent(agentId);
        const caller = agentSide(agentId);
        let expected: string | null = null;
        if (!isRelayer(caller) && lc(caller.account.address) !== a.owner) expected = "StakeVaultUnauthorized";
        else if (a.pending === 0n) expected = "StakeVaultNoWithdrawal";
        else if (m.now + 1n < a.availableAt) expected = "StakeVaultCooldownActive";
        else if (a.locks > 0 && a.stake - a.pending < m.minStake) expected = "StakeVaultStakeLocked";
        else if (m.isBlacklisted(a.owner)) expected = "Blacklisted";
        expected = gate("vault", expected);
        if (
          await exec(
            `withdraw(agent ${agentId})`,
            () => vault.write.withdraw([agentId], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          m.move(vault.address, a.owner, a.pending);
          a.stake -= a.pending;
          a.pending = 0n;
          a.availableAt = 0n;
        }
      },
    ],
    // moderation slash (to the treasury, with a reason, rate limited)
    [
      () => 2,
      always,
      async () => {
        const agentId = rnd.next() < 0.05 ? 4n : BigInt(rnd.int(3) + 1);
        const bps = rnd.pick([0n, 1n, 2_500n, 10_000n, 10_001n, rnd.bigint(1n, 10_000n)]);
        const reason = rnd.next() < 0.05 ? "" : "fuzz";
        const caller = rnd.next() < 0.9 ? wallets.admin : rnd.pick([stranger, wallets.relayer]);
        const now = m.now + 1n;
        const window = now >= m.slashWindow.start + SLASH_PERIOD ? { start: now, used: 0 } : { ...m.slashWindow };
        let expected: string | null = null;
        if (!isAdmin(caller)) expected = "AccessControlUnauthorizedAccount";
        else if (reason === "") expected = "StakeVaultReasonRequired";
        else if (window.used >= MAX_SLASHES_PER_PERIOD) expected = "StakeVaultSlashRateLimited";
        else if (!m.agents.has(agentId)) expected = "StakeVaultUnknownAgent";
        else if (bps === 0n || bps > 10_000n) expected = "StakeVaultInvalidBps";
        expected = gate("vault", expected);
        if (
          await exec(
            `slash(agent ${agentId}, ${bps})`,
            () => vault.write.slash([agentId, bps, reason], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          m.slashWindow = { start: window.start, used: window.used + 1 };
          m.slash(agentId, bps, m.treasury);
        }
      },
    ],
    // governance ban
    [
      () => 0.3,
      always,
      async () => {
        const agentId = BigInt(rnd.int(3) + 1);
        const caller = rnd.next() < 0.8 ? wallets.admin : wallets.relayer;
        let expected: string | null = null;
        if (!isAdmin(caller)) expected = "AccessControlUnauthorizedAccount";
        else if (m.agent(agentId).trust === Trust.Banned) expected = "StakeVaultAgentBanned";
        if (
          await exec(
            `ban(agent ${agentId})`,
            () => vault.write.ban([agentId, "fuzz ban"], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          m.agent(agentId).trust = Trust.Banned;
        }
      },
    ],
    // agent token changes hands (payouts and withdrawals follow the current owner)
    [
      () => 2,
      always,
      async () => {
        const agentId = BigInt(rnd.int(3) + 1);
        const a = m.agent(agentId);
        const to = rnd.pick(owners);
        if (
          await exec(
            `transferAgent(${agentId})`,
            () =>
              identity.write.transferFrom([a.owner, to.account.address, agentId], {
                account: walletOf(a.owner).account,
                gas: GAS,
              }),
            null,
          )
        ) {
          a.owner = lc(to.account.address);
        }
      },
    ],
    // Circle blacklists a poster or an agent owner (or lifts it): payments to them become credits
    [
      () => {
        const creditBlocked = [...m.escrowCredits.keys(), ...m.vaultCredits.keys()].some((a) => m.isBlacklisted(a));
        return creditBlocked ? 6 : 3;
      },
      always,
      async () => {
        // Mostly lift an existing blacklisting (so credits can be paid out again), else blacklist someone about to
        // be paid: the poster of a live run or the owner of an agent holding one.
        const listed = [...m.blacklisted];
        const soonPaid = m.runs
          .filter((r) => LIVE.has(r.state))
          .flatMap((r) => (r.agentId === 0n ? [r.poster] : [r.poster, m.agent(r.agentId).owner]));
        const who =
          listed.length > 0 && rnd.next() < 0.5
            ? rnd.pick(listed)
            : soonPaid.length > 0 && rnd.next() < 0.8
              ? rnd.pick(soonPaid)
              : lc(rnd.pick(payees).account.address);
        const on = !m.isBlacklisted(who);
        if (
          await exec(
            `${on ? "blacklist" : "unBlacklist"}(${who.slice(0, 6)})`,
            () =>
              on
                ? usdc.write.blacklist([who], { account: wallets.admin.account, gas: GAS })
                : usdc.write.unBlacklist([who], { account: wallets.admin.account, gas: GAS }),
            null,
          )
        ) {
          if (on) m.blacklisted.add(who);
          else m.blacklisted.delete(who);
        }
      },
    ],
    // credits are paid out to their owner (anyone may trigger it)
    [
      () => (m.escrowCredits.size + m.vaultCredits.size > 0 ? 6 : 0.5),
      always,
      async () => {
        const payableIn = (credits: Map<Address, bigint>) => [...credits.keys()].some((a) => !m.isBlacklisted(a));
        const fromEscrow = payableIn(m.vaultCredits)
          ? payableIn(m.escrowCredits) && rnd.next() < 0.5
          : m.vaultCredits.size === 0 || (m.escrowCredits.size > 0 && rnd.next() < 0.5);
        const credits = fromEscrow ? m.escrowCredits : m.vaultCredits;
        const payable = [...credits.keys()].filter((a) => !m.isBlacklisted(a));
        const owed = payable.length > 0 && rnd.next() < 0.8 ? payable : [...credits.keys()];
        const account = owed.length > 0 && rnd.next() < 0.8 ? rnd.pick(owed) : lc(rnd.pick(payees).account.address);
        const amount = credits.get(account) ?? 0n;
        let expected: string | null = null;
        if (amount === 0n) expected = fromEscrow ? "RunEscrowNoCredit" : "StakeVaultNoCredit";
        else if (m.isBlacklisted(account)) expected = "Blacklisted";
        expected = gate(fromEscrow ? "escrow" : "vault", expected);
        const caller = rnd.pick([stranger, wallets.relayer, walletOf(account)]);
        if (
          await exec(
            `${fromEscrow ? "escrow" : "vault"}.withdrawCredit(${account.slice(0, 6)})`,
            () =>
              fromEscrow
                ? escrow.write.withdrawCredit([account], { account: caller.account, gas: GAS })
                : vault.write.withdrawCredit([account], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          credits.delete(account);
          m.move(fromEscrow ? escrow.address : vault.address, account, amount);
        }
      },
    ],
    // agents' rewards go to their owners, several agents per call (anyone may trigger it)
    [
      () => (m.rewards() > 0n ? 2 : 0.2),
      always,
      async () => {
        const ids = [...m.agents.keys()];
        const named = steer ? ids.filter((id) => m.agent(id).rewards > 0n) : ids.filter(() => rnd.next() < 0.6);
        if (named.length === 0 || (!steer && rnd.next() < 0.1)) named.push(rnd.pick(ids));
        // A name twice pays once: the first entry empties the agent's rewards.
        const preview = named.reduce((s, id, i) => s + (named.indexOf(id) === i ? m.agent(id).rewards : 0n), 0n);
        const expected = gate("escrow", preview === 0n ? "RunEscrowNothingToPay" : null);
        const caller = rnd.pick([stranger, wallets.relayer, ...owners]);
        if (
          await exec(
            `payRewards(${named.join(",")})`,
            () => escrow.write.payRewards([named], { account: caller.account, gas: GAS }),
            expected,
          )
        )
          m.payRewards(named);
      },
    ],
    // accrued fees go to the treasury in one transfer (anyone may trigger it)
    [
      () => (m.fees > 0n ? 2 : 0.5),
      always,
      async () => {
        const caller = rnd.pick([stranger, wallets.relayer, wallets.treasury]);
        const expected = gate(
          "escrow",
          m.fees === 0n ? "RunEscrowNothingToSweep" : m.isBlacklisted(m.treasury) ? "Blacklisted" : null,
        );
        if (await exec("sweepFees()", () => escrow.write.sweepFees({ account: caller.account, gas: GAS }), expected)) {
          m.move(escrow.address, m.treasury, m.fees);
          m.fees = 0n;
        }
      },
    ],
    // escrow slash rate
    [
      () => 1,
      always,
      async () => {
        const bps = rnd.pick([0n, 1n, 5_000n, 10_000n, 10_001n]);
        const expected = bps === 0n || bps > 10_000n ? "RunEscrowInvalidBps" : null;
        if (
          await exec(
            `setSlashBps(${bps})`,
            () => escrow.write.setSlashBps([bps], { account: wallets.admin.account, gas: GAS }),
            expected,
          )
        ) {
          m.slashBps = bps;
        }
      },
    ],
    // fee rate (governance): runs funded before keep their own fee
    [
      () => 1,
      always,
      async () => {
        const bps = rnd.pick([0n, 1n, 250n, 500n, 1_000n, 1_001n]);
        if (
          await exec(
            `setFeeBps(${bps})`,
            () => escrow.write.setFeeBps([bps], { account: wallets.admin.account, gas: GAS }),
            bps > 1_000n ? "RunEscrowInvalidFeeBps" : null,
          )
        ) {
          m.feeBps = bps;
        }
      },
    ],
    // minimum stake (governance): what claims need and what stays locked under held runs, from now on
    [
      () => 1,
      always,
      async () => {
        const amount = rnd.pick([0n, 1_000_000n, 10_000_000n, MIN_STAKE, 30_000_000n, 50_000_000n, 10n ** 12n + 1n]);
        const invalid = amount < 1_000_000n || amount > 10n ** 12n;
        if (
          await exec(
            `setMinStake(${amount})`,
            () => vault.write.setMinStake([amount], { account: wallets.admin.account, gas: GAS }),
            invalid ? "StakeVaultInvalidMinStake" : null,
          )
        ) {
          m.minStake = amount;
        }
      },
    ],
    // claim timeout (governance): applies to runs already claimed or waiting on a revision too
    [
      () => (has(S.Claimed, S.InProgress, S.RevisionRequested)() ? 1.5 : 0.5),
      always,
      async () => {
        const timeout = rnd.pick([DAY - 1n, DAY, 2n * DAY, 5n * DAY, TIMEOUT, TIMEOUT + 1n]);
        if (
          await exec(
            `setClaimTimeout(${timeout})`,
            () => escrow.write.setClaimTimeout([timeout], { account: wallets.admin.account, gas: GAS }),
            timeout < DAY || timeout > TIMEOUT ? "RunEscrowInvalidClaimTimeout" : null,
          )
        ) {
          m.claimTimeout = timeout;
        }
      },
    ],
    // emergency pause / unpause (the Safe or the timelock: PAUSER_ROLE); a stranger is refused
    [
      () => (Object.values(m.paused).some((p) => p) ? 6 : 0.4),
      always,
      async () => {
        // Mostly lift a pause in force (a pause is an emergency, not a state the system lives in).
        const paused = (["escrow", "vault", "pool"] as const).filter((t) => m.paused[t]);
        const target =
          paused.length > 0 && rnd.next() < 0.8 ? rnd.pick(paused) : rnd.pick(["escrow", "vault", "pool"] as const);
        const on = m.paused[target] ? rnd.next() < 0.1 : rnd.next() < 0.9;
        const caller = rnd.next() < 0.9 ? wallets.admin : rnd.pick([stranger, wallets.relayer]);
        let expected: string | null = null;
        if (!isAdmin(caller)) expected = "AccessControlUnauthorizedAccount";
        else if (on && m.paused[target]) expected = "EnforcedPause";
        else if (!on && !m.paused[target]) expected = "ExpectedPause";
        if (await exec(`${target}.${on ? "pause" : "unpause"}()`, () => setPaused(target, on, caller), expected)) {
          m.paused[target] = on;
        }
      },
    ],
    // insurance coverage staked for an agent (agents 1..3)
    [
      () => 3,
      always,
      async () => {
        const agentId = BigInt(rnd.int(3) + 1);
        const from = rnd.pick(owners);
        const amount = rnd.next() < 0.05 ? 0n : rnd.bigint(1n, 50_000_000n);
        let expected: string | null = null;
        if (amount === 0n) expected = "InsurancePoolZeroAmount";
        else if (m.isBlacklisted(from.account.address)) expected = "Blacklisted";
        expected = gate("pool", expected);
        if (
          await exec(
            `pool.stake(agent ${agentId}, ${amount})`,
            () => pool.write.stake([agentId, amount], { account: from.account, gas: GAS }),
            expected,
          )
        ) {
          m.coverage.set(agentId, m.coverage.get(agentId)! + amount);
          m.move(from.account.address, pool.address, amount);
        }
      },
    ],
    // the poster (or the relayer for it) claims insurance for a run an agent verifiably failed
    [
      () =>
        m.runs.some(
          (r, i) =>
            (r.failure[1] === Fail.TimedOut || r.failure[1] === Fail.DisputeLost) && !m.insured.has(BigInt(i + 1)),
        )
          ? 12
          : 0.5,
      always,
      async () => {
        const failed = m.runs
          .map((r, i) => ({ r, id: BigInt(i + 1) }))
          .filter(({ r, id }) => r.failure[0] !== 0n && (!m.insured.has(id) || rnd.next() < 0.2));
        const payable = failed.filter(({ r, id }) => insurancePays(id, r));
        const id =
          steer && payable.length > 0
            ? payable[0]!.id
            : failed.length > 0 && rnd.next() < 0.85
              ? rnd.pick(failed).id
              : pickRun([S.Open, S.Completed]);
        const r = known(id);
        const caller =
          r && (steer || rnd.next() < 0.9)
            ? steer || rnd.next() < 0.5
              ? walletOf(r.poster)
              : wallets.relayer
            : stranger;
        await insuranceClaim("pool.claim", id, caller);
      },
    ],
    // the poster let the review window pass: anyone releases the submission to the agent (as an approval)
    anyoneEnds(S.Submitted, reviewOver, "releaseAfterReview", (r) => m.complete(r)),
    // the arbiter let the dispute window pass: anyone ends the dispute by its default (refund, no slash)
    anyoneEnds(S.Disputed, disputeOver, "expireDispute", (r) => expireDispute(r)),
    // review and dispute windows (governance): apply to submissions and disputes already waiting
    [
      () => 0.7,
      always,
      async () => {
        const review = rnd.pick([DAY - 1n, DAY, 3n * DAY, REVIEW, 30n * DAY, 30n * DAY + 1n]);
        const dispute = rnd.pick([3n * DAY - 1n, 3n * DAY, DISPUTE, 90n * DAY, 90n * DAY + 1n]);
        const invalid = review < DAY || review > 30n * DAY || dispute < 3n * DAY || dispute > 90n * DAY;
        if (
          await exec(
            `setWindows(${review}, ${dispute})`,
            () => escrow.write.setWindows([review, dispute], { account: wallets.admin.account, gas: GAS }),
            invalid ? "RunEscrowInvalidWindows" : null,
          )
        ) {
          m.reviewWindow = review;
          m.disputeWindow = dispute;
        }
      },
    ],
    // cover bound (governance): runs created from now on; runs funded before keep their cover
    [
      () => 0.7,
      always,
      async () => {
        const bps = rnd.pick([0n, 10_000n, 100_000n, 1_000_000n, 1_000_001n]);
        if (
          await exec(
            `setMaxCoverBps(${bps})`,
            () => escrow.write.setMaxCoverBps([bps], { account: wallets.admin.account, gas: GAS }),
            bps > 1_000_000n ? "RunEscrowInvalidBps" : null,
          )
        ) {
          m.maxCoverBps = bps;
        }
      },
    ],
    // minimum reward (governance): runs created from now on
    [
      () => 0.7,
      always,
      async () => {
        const amount = rnd.pick([0n, MIN_REWARD, 15_000n, 1_000_000n, 500_000_000n, 500_010_000n]);
        const invalid = amount > 500_000_000n || amount % 10_000n !== 0n;
        if (
          await exec(
            `setMinReward(${amount})`,
            () => escrow.write.setMinReward([amount], { account: wallets.admin.account, gas: GAS }),
            invalid ? "RunEscrowInvalidMinReward" : null,
          )
        ) {
          m.minReward = amount;
        }
      },
    ],
    // a poster opens a subscription (terms it signs by sending the transaction) and funds it
    [
      () => (m.subs.filter((x) => liveSub(x)).length < 2 ? 3 : 0.5),
      always,
      async () => {
        const payers = posters.filter((w) => !m.isBlacklisted(w.account.address));
        const p = steer && payers.length > 0 ? payers[0]! : rnd.pick(posters);
        const caller = steer || rnd.next() < 0.9 ? p : rnd.pick([stranger, wallets.relayer]);
        const rewardPerRun = !steer && rnd.next() < 0.1 ? rnd.pick([0n, 5_000n]) : rnd.bigint(100_000n, 3_000_000n);
        const interval = !steer && rnd.next() < 0.05 ? 3599n : rnd.pick([3600n, DAY, 3n * DAY]);
        const runDuration = !steer && rnd.next() < 0.05 ? 0n : rnd.pick([3600n, DAY, 10n * DAY]);
        const totalRuns = rnd.int(4);
        const maxRevisions = rnd.int(3);
        const startsAt = m.now + rnd.bigint(0n, DAY) - (rnd.next() < 0.3 ? 2n * DAY : 0n);
        const perRun = rewardPerRun + feeOf(rewardPerRun, m.feeBps);
        const amount =
          !steer && rnd.next() < 0.05 ? 0n : perRun * BigInt(rnd.int(4)) + rnd.bigint(steer ? 1n : 0n, perRun);
        let expected: string | null = null;
        if (lc(caller.account.address) !== lc(p.account.address)) expected = "SubscriptionVaultUnauthorized";
        else if (rewardPerRun === 0n || interval < 3600n || runDuration < 3600n) {
          expected = "SubscriptionVaultInvalidTerms";
        } else if (amount === 0n) expected = "SubscriptionVaultZeroAmount";
        else if (m.isBlacklisted(p.account.address)) expected = "Blacklisted";
        const terms = {
          subscriber: p.account.address,
          rewardPerRun,
          interval: Number(interval),
          startsAt: Number(startsAt),
          totalRuns,
          runDuration: Number(runDuration),
          maxRevisions,
        };
        if (
          await exec(
            `sub.open(${m.subs.length + 1}, reward ${rewardPerRun}, every ${interval}s, ${totalRuns} runs, ${amount})`,
            () => subs.write.open([terms, amount], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          m.subs.push({
            subscriber: lc(p.account.address),
            rewardPerRun,
            interval,
            totalRuns,
            runDuration,
            maxRevisions,
            nextRunAt: startsAt < m.now ? m.now : startsAt,
            status: SubStatus.Active,
            runsCreated: 0,
            balance: amount,
            paidIn: amount,
            refunded: 0n,
          });
          m.move(p.account.address, subs.address, amount);
        }
      },
    ],
    // anyone with an allowance tops a subscription up (the money joins the subscriber's balance)
    [
      () => 2,
      () => m.subs.length > 0,
      async () => {
        const live = m.subs.map((x, i) => ({ x, id: BigInt(i + 1) })).filter(({ x }) => liveSub(x));
        const id =
          live.length > 0 && (steer || rnd.next() < 0.9) ? rnd.pick(live).id : BigInt(rnd.int(m.subs.length + 1) + 1);
        const x = m.subs[Number(id) - 1];
        const payers = posters.filter((w) => !m.isBlacklisted(w.account.address));
        const payer = steer && payers.length > 0 ? rnd.pick(payers) : rnd.next() < 0.9 ? rnd.pick(posters) : stranger;
        const amount = !steer && rnd.next() < 0.05 ? 0n : rnd.bigint(1n, 10_000_000n);
        let expected: string | null = null;
        if (!x) expected = "SubscriptionVaultUnknown";
        else if (!liveSub(x)) expected = "SubscriptionVaultInvalidStatus";
        else if (amount === 0n) expected = "SubscriptionVaultZeroAmount";
        else if (payer === stranger) expected = "ERC20InsufficientAllowance";
        else if (m.isBlacklisted(payer.account.address)) expected = "Blacklisted";
        if (
          await exec(
            `sub.topUp(${id}, ${amount})`,
            () => subs.write.topUp([id, amount], { account: payer.account, gas: GAS }),
            expected,
          )
        ) {
          // An exhausted subscription that can pay again starts now, not with a burst of missed slots.
          if (x!.balance < subCost(x!) && x!.nextRunAt < m.now) x!.nextRunAt = m.now;
          x!.balance += amount;
          x!.paidIn += amount;
          m.move(payer.account.address, subs.address, amount);
        }
      },
    ],
    // a due run of a subscription is posted (the relayer, or the subscriber): only at the signed terms
    [
      () => (m.subs.some((x) => subDue(x)) ? 8 : 1),
      () => m.subs.length > 0,
      async () => {
        const due = m.subs.map((x, i) => ({ x, id: BigInt(i + 1) })).filter(({ x }) => subDue(x));
        const id =
          due.length > 0 && (steer || rnd.next() < 0.8) ? rnd.pick(due).id : BigInt(rnd.int(m.subs.length + 1) + 1);
        const x = m.subs[Number(id) - 1];
        const caller =
          steer || rnd.next() < 0.9
            ? steer || rnd.next() < 0.7 || !x
              ? wallets.relayer
              : walletOf(x.subscriber)
            : rnd.pick([stranger, ...owners]);
        const cost = x ? subCost(x) : 0n;
        const completes = x !== undefined && x.totalRuns !== 0 && x.runsCreated + 1 === x.totalRuns;
        let expected: string | null = null;
        if (!x) expected = "SubscriptionVaultUnknown";
        else if (!isRelayer(caller) && lc(caller.account.address) !== x.subscriber) {
          expected = "SubscriptionVaultUnauthorized";
        } else if (x.status !== SubStatus.Active) expected = "SubscriptionVaultInvalidStatus";
        else if (m.now + 1n < x.nextRunAt) expected = "SubscriptionVaultNotDue";
        else if (x.balance < cost) expected = "SubscriptionVaultInsufficientBalance";
        else if (m.paused.escrow) expected = "EnforcedPause";
        else if (x.rewardPerRun < m.minReward) expected = "RunEscrowRewardTooLow";
        else if (completes && x.balance > cost && m.isBlacklisted(x.subscriber)) expected = "Blacklisted";
        if (
          await exec(
            `sub.trigger(${id})`,
            () => subs.write.trigger([id, "ipfs://subscription-run"], { account: caller.account, gas: GAS }),
            expected,
          )
        ) {
          m.runs.push({
            poster: x!.subscriber,
            reward: x!.rewardPerRun,
            fee: cost - x!.rewardPerRun,
            deadline: m.now + x!.runDuration,
            maxRevisions: x!.maxRevisions,
            revisions: 0,
            state: S.Open,
            agentId: 0n,
            claimedAt: 0n,
            since: 0n,
            deliverableHash: zeroHash,
            failure: [0n, Fail.None, 0n],
            sub: id,
          });
          m.move(subs.address, escrow.address, cost);
          x!.balance -= cost;
          x!.runsCreated++;
          x!.nextRunAt += x!.interval;
          if (completes) {
            x!.status = SubStatus.Completed;
            refundSub(x!);
          }
        }
      },
    ],
    // the subscriber (or the relayer for it) pauses, resumes or cancels a subscription: refunds go to the subscriber
    [
      () => 2,
      () => m.subs.length > 0,
      async () => {
        const wanted = steer === "sub.pause" ? SubStatus.Active : steer === "sub.resume" ? SubStatus.Paused : null;
        const live = m.subs
          .map((x, i) => ({ x, id: BigInt(i + 1) }))
          .filter(({ x }) => (wanted === null ? liveSub(x) : x.status === wanted));
        const id =
          live.length > 0 && (steer || rnd.next() < 0.9) ? rnd.pick(live).id : BigInt(rnd.int(m.subs.length + 1) + 1);
        const x = m.subs[Number(id) - 1];
        const caller =
          x && (steer || rnd.next() < 0.9) ? (rnd.next() < 0.5 ? walletOf(x.subscriber) : wallets.relayer) : stranger;
        const what =
          steer === "sub.cancel" || (!steer && rnd.next() < 0.4)
            ? "cancel"
            : x?.status === SubStatus.Paused
              ? "resume"
              : "pause";
        let expected: string | null = null;
        if (!x) expected = "SubscriptionVaultUnknown";
        else if (!isRelayer(caller) && lc(caller.account.address) !== x.subscriber) {
          expected = "SubscriptionVaultUnauthorized";
        } else if (what === "pause" && x.status !== SubStatus.Active) expected = "SubscriptionVaultInvalidStatus";
        else if (what === "resume" && x.status !== SubStatus.Paused) expected = "SubscriptionVaultInvalidStatus";
        else if (what === "cancel" && !liveSub(x)) expected = "SubscriptionVaultInvalidStatus";
        else if (what === "cancel" && x.balance > 0n && m.isBlacklisted(x.subscriber)) expected = "Blacklisted";
        const opts = { account: caller.account, gas: GAS };
        if (
          await exec(
            `sub.${what}(${id})`,
            () =>
              what === "cancel"
                ? subs.write.cancelSubscription([id], opts)
                : what === "pause"
                  ? subs.write.pauseSubscription([id], opts)
                  : subs.write.resumeSubscription([id], opts),
            expected,
          )
        ) {
          if (what === "pause") x!.status = SubStatus.Paused;
          else if (what === "resume") {
            x!.status = SubStatus.Active;
            if (x!.nextRunAt < m.now) x!.nextRunAt = m.now;
          } else {
            x!.status = SubStatus.Cancelled;
            refundSub(x!);
          }
        }
      },
    ],
    // time passes (more often while claims, revisions or withdrawals are waiting on a clock)
    [
      () =>
        4 +
        (has(S.Claimed, S.InProgress, S.RevisionRequested, S.Submitted, S.Disputed)() ? 5 : 0) +
        ([...m.agents.values()].some((a) => a.pending > 0n) ? 3 : 0),
      always,
      async () => {
        const jump = rnd.pick([
          60n,
          3600n,
          DAY,
          3n * DAY,
          m.claimTimeout,
          m.claimTimeout + 1n,
          m.reviewWindow,
          m.disputeWindow,
          COOLDOWN,
          20n * DAY,
        ]);
        m.now += jump;
        log.push(`time +${jump}s`);
      },
    ],
  ];
  const some = (states: S[], good: (r: RunM) => boolean) => m.runs.some((r) => states.includes(r.state) && good(r));
  const unpaused = (...targets: Array<keyof Model["paused"]>) => targets.every((t) => !m.paused[t]);
  /** When a steered action can succeed (by default: its action is applicable). */
  const READY: Record<string, () => boolean> = {
    payRewards: () => m.rewards() > 0n && unpaused("escrow"),
    sweepFees: () => m.fees > 0n && unpaused("escrow") && !m.isBlacklisted(m.treasury),
    "pool.claim": () => m.runs.some((r, i) => insurancePays(BigInt(i + 1), r)),
    releaseAfterReview: () => some([S.Submitted], reviewOver) && unpaused("escrow"),
    expireDispute: () => some([S.Disputed], disputeOver) && unpaused("escrow"),
    timeoutSlash: () => some([S.Claimed, S.InProgress, S.RevisionRequested], timedOut) && unpaused("escrow", "vault"),
    resolve: () => some([S.Disputed], (r) => !disputeOver(r)) && unpaused("escrow", "vault"),
    reject: () => some([S.Submitted], (r) => r.revisions >= r.maxRevisions && !reviewOver(r)) && unpaused("escrow"),
    requestRevision: () => some([S.Submitted], (r) => r.revisions < r.maxRevisions && !reviewOver(r)),
    dispute: () => some([S.Submitted, S.RevisionRequested], (r) => r.state !== S.Submitted || !reviewOver(r)),
    approve: () => some([S.Submitted], () => true) && unpaused("escrow"),
    cancel: () => some([S.Open], () => true) && unpaused("escrow"),
    claim: () =>
      some([S.Open], (r) => m.now + 1n <= r.deadline) &&
      [...m.agents.values()].some((a) => lockError(a) === null) &&
      unpaused("escrow"),
    "sub.trigger": () => m.subs.some((x) => subDue(x) && x.rewardPerRun >= m.minReward) && unpaused("escrow"),
    "sub.pause": () => m.subs.some((x) => x.status === SubStatus.Active),
    "sub.resume": () => m.subs.some((x) => x.status === SubStatus.Paused),
  };
  for (const name of ["reject", "requestRevision", "dispute", "approve", "cancel", "claim"]) {
    READY[`${name}BySig`] = READY[name]!;
  }
  /** When an action waiting on a clock can go: the earliest such time, if any. */
  const earliest = (times: bigint[]) => (times.length > 0 ? times.reduce((a, b) => (a < b ? a : b)) : undefined);
  const CLOCK: Record<string, () => bigint | undefined> = {
    releaseAfterReview: () =>
      earliest(m.runs.filter((r) => r.state === S.Submitted).map((r) => r.since + m.reviewWindow)),
    expireDispute: () => earliest(m.runs.filter((r) => r.state === S.Disputed).map((r) => r.since + m.disputeWindow)),
    timeoutSlash: () =>
      earliest(m.runs.filter((r) => [S.Claimed, S.InProgress, S.RevisionRequested].includes(r.state)).map(dueAt)),
    withdraw: () => earliest([...m.agents.values()].filter((a) => a.pending > 0n).map((a) => a.availableAt)),
    "sub.trigger": () => earliest(m.subs.filter((x) => x.status === SubStatus.Active).map((x) => x.nextRunAt)),
  };
  const steps = 10 + rnd.int(Math.max(1, MAX_STEPS - 9));
  for (let step = 0; step < steps; step++) {
    // An action that never succeeded yet and whose state is reached now is driven (steered to its happy path) a
    // third of the time: coverage comes from construction, not from the seed.
    // An action waiting on a clock (a review or dispute window, a timeout, a cooldown, a subscription slot) gets
    // the time it needs.
    const missing = REQUIRED.filter((name) => (stats.get(name)?.ok ?? 0) === 0 && producers.has(producerKey(name)));
    const uncovered = missing.filter((name) => (READY[name] ?? actions[producers.get(producerKey(name))!]![1])());
    const waiting = missing.map((name) => CLOCK[name]?.()).filter((at): at is bigint => at !== undefined);
    if (uncovered.length === 0 && waiting.length > 0 && rnd.next() < 0.33) {
      const at = waiting.reduce((a, b) => (a < b ? a : b));
      if (at > m.now + 1n) {
        log.push(`time +${at - m.now - 1n}s (steered)`);
        m.now = at - 1n;
      }
      continue;
    }
    if (uncovered.length > 0 && rnd.next() < 0.33) {
      steer = rnd.pick(uncovered);
      current = producers.get(producerKey(steer))!;
      try {
        await actions[current]![2]();
      } finally {
        steer = null;
      }
      await checkInvariants(fx, m);
      continue;
    }
    // Mostly actions that have a run (or stake) in a fitting state; sometimes anything (mostly expected reverts).
    const focused = rnd.next() < 0.9;
    const pool = focused ? actions.filter(([, applicable]) => applicable()) : actions;
    const weights = pool.map(([w]) => (focused ? w() : 1));
    let roll = rnd.next() * weights.reduce((sum, w) => sum + w, 0);
    for (const [i, [, , act]] of pool.entries()) {
      roll -= weights[i]!;
      if (roll < 0) {
        current = actions.indexOf(pool[i]!);
        await act();
        break;
      }
    }
    await checkInvariants(fx, m);
  }
  current = -1;
  const st = stats.get("(payments deferred)") ?? { ok: 0, err: 0 };
  st.ok += m.deferred;
  stats.set("(payments deferred)", st);
  // Liveness: once nothing is paused and nobody is blacklisted, every credit and every accrued fee can be paid out,
  // to the right account.
  for (const target of ["escrow", "vault", "pool"] as const) {
    if (!m.paused[target]) continue;
    await exec(`settle.${target}.unpause()`, () => setPaused(target, false, wallets.admin), null);
    m.paused[target] = false;
  }
  for (const who of [...m.blacklisted]) {
    await exec(`settle.unBlacklist(${who.slice(0, 6)})`, () => usdc.write.unBlacklist([who], { gas: GAS }), null);
    m.blacklisted.delete(who);
  }
  // Every subscription can be wound down: cancelling refunds its whole balance to its subscriber.
  for (const [i, x] of m.subs.entries()) {
    if (x.status !== SubStatus.Active && x.status !== SubStatus.Paused) continue;
    const id = BigInt(i + 1);
    const relayed = { account: wallets.relayer.account, gas: GAS };
    await exec(`settle.sub.cancel(${id})`, () => subs.write.cancelSubscription([id], relayed), null);
    x.status = SubStatus.Cancelled;
    refundSub(x);
  }
  assert.equal(await subs.read.totalHeld(), 0n, "after settling, the subscription vault holds nothing");
  // Every run an agent holds reaches an end state without the arbiter (and without the poster): the agent
  // (re)submits what it holds, and once the review and dispute windows have passed anyone releases each submission
  // and ends each dispute by its default.
  for (const [i, r] of m.runs.entries()) {
    if (![S.Claimed, S.InProgress, S.RevisionRequested].includes(r.state)) continue;
    const id = BigInt(i + 1);
    const hash = bytes32(`final-${seed}-${id}`);
    const owner = walletOf(m.agent(r.agentId).owner);
    await exec(
      `settle.submit(${id})`,
      () => escrow.write.submit([id, hash], { account: owner.account, gas: GAS }),
      null,
    );
    Object.assign(r, { state: S.Submitted, deliverableHash: hash, since: m.now });
  }
  m.now += (m.reviewWindow > m.disputeWindow ? m.reviewWindow : m.disputeWindow) + 1n;
  for (const [i, r] of m.runs.entries()) {
    const id = BigInt(i + 1);
    const anyone = { account: stranger.account, gas: GAS };
    if (r.state === S.Submitted) {
      await exec(`settle.releaseAfterReview(${id})`, () => escrow.write.releaseAfterReview([id], anyone), null);
      m.complete(r);
    } else if (r.state === S.Disputed) {
      await exec(`settle.expireDispute(${id})`, () => escrow.write.expireDispute([id], anyone), null);
      expireDispute(r);
    }
  }
  for (const [id, a] of m.agents)
    assert.equal(await vault.read.locksOf([id]), 0n, `agent ${id} still locked: ${a.locks}`);
  assert.ok(!m.runs.some((r) => HELD.has(r.state)), "a held run is left without the arbiter");
  // Every poster claims insurance for each run an agent failed (the model says what each claim pays, if anything).
  for (const [i, r] of m.runs.entries()) {
    if (r.failure[0] !== 0n && !m.insured.has(BigInt(i + 1))) {
      await insuranceClaim("settle.pool.claim", BigInt(i + 1), walletOf(r.poster));
    }
  }
  const owed = [...m.agents.entries()].filter(([, a]) => a.rewards > 0n).map(([id]) => id);
  if (owed.length > 0) {
    await exec(
      "settle.payRewards()",
      () => escrow.write.payRewards([owed], { account: stranger.account, gas: GAS }),
      null,
    );
    m.payRewards(owed);
  }
  for (const [fromEscrow, credits] of [
    [true, m.escrowCredits],
    [false, m.vaultCredits],
  ] as const) {
    for (const [account, amount] of [...credits]) {
      await exec(
        `settle.${fromEscrow ? "escrow" : "vault"}.withdrawCredit(${account.slice(0, 6)})`,
        () =>
          fromEscrow
            ? escrow.write.withdrawCredit([account], { account: stranger.account, gas: GAS })
            : vault.write.withdrawCredit([account], { account: stranger.account, gas: GAS }),
        null,
      );
      credits.delete(account);
      m.move(fromEscrow ? escrow.address : vault.address, account, amount);
    }
  }
  if (m.fees > 0n) {
    await exec("settle.sweepFees()", () => escrow.write.sweepFees({ account: stranger.account, gas: GAS }), null);
    m.move(escrow.address, m.treasury, m.fees);
    m.fees = 0n;
  }
  await checkInvariants(fx, m);
  assert.equal(await escrow.read.totalOwed(), m.held(), "after settling, the escrow owes only its live runs");
  assert.equal(await vault.read.totalCredits(), 0n, "after settling, the vault owes only stakes");
  // Failure records are only read at the end of a sequence (they change only with the run states checked above).
  for (let i = 0; i < m.runs.length; i++) {
    const id = BigInt(i + 1);
    const [, , slashed] = m.runs[i]!.failure;
    assert.deepEqual(await escrow.read.failureOf([id]), m.runs[i]!.failure, `failureOf(${i + 1})`);
    assert.equal(await escrow.read.coverOf([id]), m.covers.get(id) ?? 0n, `coverOf(${id})`);
    assert.equal(await pool.read.isClaimed([id]), m.insured.has(id), `isClaimed(${id})`);
    // Insurance never pays more than the agreed damages net of the slash the poster already got.
    const paid = m.insured.get(id) ?? 0n;
    if (paid > 0n)
      assert.ok(paid + slashed <= m.covers.get(id)!, `run ${id}: insurance ${paid} + slash ${slashed} <= cover`);
  }
  return steps;
}

/**
 * SubscriptionVault: its balance is the sum of the subscriptions' balances, each subscription is as the model says,
 * and every unit that left one is a run it posted at its signed terms (the runs' on-chain terms are checked against
 * the model with every other run) or a refund to its subscriber (every account's balance is checked too).
 */
async function checkSubscriptions(fx: Fx, m: Model) {
  const { subs, usdc } = fx;
  const [held, balance, onChain] = await Promise.all([
    subs.read.totalHeld(),
    usdc.read.balanceOf([subs.address]),
    Promise.all(m.subs.map((_, i) => subs.read.getSubscription([BigInt(i + 1)]))),
  ]);
  assert.equal(balance, held, "usdc.balanceOf(subscriptions) == totalHeld()");
  assert.equal(
    held,
    onChain.reduce((sum, x) => sum + x.balance, 0n),
    "totalHeld() == sum of subscription balances",
  );
  m.subs.forEach((x, i) => {
    const id = BigInt(i + 1);
    const c = onChain[i]!;
    assert.deepEqual(
      [lc(c.subscriber), c.status, c.balance, c.runsCreated, BigInt(c.nextRunAt)],
      [x.subscriber, x.status, x.balance, x.runsCreated, x.nextRunAt],
      `subscription ${id}`,
    );
    const posted = m.runs.filter((r) => r.sub === id);
    assert.equal(posted.length, x.runsCreated, `subscription ${id}: runs posted`);
    for (const r of posted) {
      assert.deepEqual(
        [r.poster, r.reward, r.maxRevisions],
        [x.subscriber, x.rewardPerRun, x.maxRevisions],
        `subscription ${id}: a run at the signed terms`,
      );
    }
    const spent = posted.reduce((sum, r) => sum + r.reward + r.fee, 0n);
    assert.equal(x.paidIn, x.balance + spent + x.refunded, `subscription ${id}: in == balance + runs + refunds`);
  });
}

async function checkInvariants(fx: Fx, m: Model) {
  const { escrow, vault, pool, usdc } = fx;
  await checkSubscriptions(fx, m);
  const runIds = m.runs.map((_, i) => BigInt(i + 1));
  const agentIds = [...m.agents.keys()];
  const accounts = [...m.balances.keys()];
  const [escrowBal, owed, fees, count, vaultBal, staked, vaultCredits, runs, stakes, pendings, trusts, locks, rewards] =
    await Promise.all([
      usdc.read.balanceOf([escrow.address]),
      escrow.read.totalOwed(),
      escrow.read.feesAccrued(),
      escrow.read.runCount(),
      usdc.read.balanceOf([vault.address]),
      vault.read.totalStaked(),
      vault.read.totalCredits(),
      Promise.all(runIds.map((id) => escrow.read.getRun([id]))),
      Promise.all(agentIds.map((id) => vault.read.stakeOf([id]))),
      Promise.all(agentIds.map((id) => vault.read.pendingWithdrawal([id]))),
      Promise.all(agentIds.map((id) => vault.read.trustOf([id]))),
      Promise.all(agentIds.map((id) => vault.read.locksOf([id]))),
      Promise.all(agentIds.map((id) => escrow.read.rewardsOf([id]))),
    ]);
  const [poolBal, totalCoverage, coverages, pausedNow, minStake, claimTimeout] = await Promise.all([
    usdc.read.balanceOf([pool.address]),
    pool.read.totalCoverage(),
    Promise.all(agentIds.map((id) => pool.read.coverageOf([id]))),
    Promise.all([escrow.read.paused(), vault.read.paused(), pool.read.paused()]),
    vault.read.minStake(),
    escrow.read.claimTimeout(),
  ]);
  assert.equal(poolBal, totalCoverage, "usdc.balanceOf(pool) == totalCoverage()");
  assert.equal(
    totalCoverage,
    coverages.reduce((sum, x) => sum + x, 0n),
    "totalCoverage() == sum of coverageOf",
  );
  for (const [i, id] of agentIds.entries()) assert.equal(coverages[i], m.coverage.get(id), `coverageOf(${id})`);
  assert.deepEqual(pausedNow, [m.paused.escrow, m.paused.vault, m.paused.pool], "paused (escrow, vault, pool)");
  assert.equal(minStake, m.minStake, "minStake");
  assert.equal(claimTimeout, m.claimTimeout, "claimTimeout");
  const [balances, escrowCredits, vaultCreditsOf] = await Promise.all([
    Promise.all(accounts.map((a) => usdc.read.balanceOf([a]))),
    Promise.all(accounts.map((a) => escrow.read.creditOf([a]))),
    Promise.all(accounts.map((a) => vault.read.creditOf([a]))),
  ]);
  // The accounting invariants, from chain data alone.
  const liveSum = runs.filter((r) => LIVE.has(r.state)).reduce((s, r) => s + r.reward + r.fee, 0n);
  const escrowCreditSum = escrowCredits.reduce((s, x) => s + x, 0n);
  assert.equal(escrowBal, owed, "usdc.balanceOf(escrow) == totalOwed()");
  const rewardSum = rewards.reduce((s, x) => s + x, 0n);
  assert.equal(
    owed,
    liveSum + fees + rewardSum + escrowCreditSum,
    "totalOwed() == live runs' reward + fee + fees + agents' rewards + credits",
  );
  assert.equal(vaultBal, staked + vaultCredits, "usdc.balanceOf(vault) == totalStaked() + totalCredits()");
  assert.equal(
    staked,
    stakes.reduce((s, x) => s + x, 0n),
    "totalStaked() == sum of stakeOf",
  );
  assert.equal(
    vaultCredits,
    vaultCreditsOf.reduce((s, x) => s + x, 0n),
    "totalCredits() == sum of creditOf",
  );
  // Chain == model.
  assert.equal(count, BigInt(m.runs.length), "runCount");
  assert.equal(owed, m.owed(), "model owed");
  assert.equal(fees, m.fees, "model fees");
  assert.equal(staked, m.staked(), "model staked");
  assert.equal(vaultCredits, m.credits(m.vaultCredits), "model vault credits");
  runs.forEach((r, i) => {
    const e = m.runs[i]!;
    assert.deepEqual(
      {
        poster: r.poster.toLowerCase(),
        reward: r.reward,
        fee: r.fee,
        deadline: r.deadline,
        maxRevisions: r.maxRevisions,
        revisions: r.revisions,
        state: r.state,
        agentId: r.agentId,
        claimedAt: r.claimedAt,
        since: r.since,
        deliverableHash: r.deliverableHash,
      },
      {
        poster: e.poster,
        reward: e.reward,
        fee: e.fee,
        deadline: e.deadline,
        maxRevisions: e.maxRevisions,
        revisions: e.revisions,
        state: e.state,
        agentId: e.agentId,
        claimedAt: e.claimedAt,
        since: e.since,
        deliverableHash: e.deliverableHash,
      },
      `run ${i + 1}`,
    );
  });
  agentIds.forEach((id, i) => {
    const a = m.agents.get(id)!;
    assert.equal(stakes[i], a.stake, `stakeOf(${id})`);
    assert.deepEqual(pendings[i], [a.pending, a.availableAt], `pendingWithdrawal(${id})`);
    assert.deepEqual(trusts[i], [a.trust, BigInt(a.strikes)], `trustOf(${id})`);
    assert.equal(locks[i], BigInt(a.locks), `locksOf(${id})`);
    assert.equal(rewards[i], a.rewards, `rewardsOf(${id})`);
    const heldRuns = m.runs.filter((r) => HELD.has(r.state) && r.agentId === id).length;
    assert.equal(a.locks, heldRuns, `agent ${id} holds ${heldRuns} runs, locks ${a.locks}`);
    assert.ok(a.pending <= a.stake, "pending <= stake");
  });
  for (const [i, a] of accounts.entries()) {
    assert.equal(balances[i], m.bal(a), `balance of ${a}`);
    assert.equal(escrowCredits[i], m.escrowCredits.get(a) ?? 0n, `escrow credit of ${a}`);
    assert.equal(vaultCreditsOf[i], m.vaultCredits.get(a) ?? 0n, `vault credit of ${a}`);
  }
}
