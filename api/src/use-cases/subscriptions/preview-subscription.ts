// What instructions mean as a subscription (cadence, schedule, prepaid cost) and the vault terms they become;
// nothing is created. Creation checks the same way.
import { type Address, getAddress } from "viem";
import type { Deps } from "../../context.ts";
import {
  type Cadence,
  CadenceError,
  costsOf,
  DAY,
  firstRunAt,
  nextRuns,
  parseCadence,
  SUBSCRIPTION_LIMITS,
} from "../../domain/cadence.ts";
import { ApiError, apiError } from "../../errors.ts";
import { isoFromSeconds, isoOrNull } from "../../lib/time.ts";
import { SUBSCRIPTION_RUN_MAX_REVISIONS, vault } from "./vault.ts";

/** Run times listed by the preview. */
const PREVIEW_RUNS = 5;
const WEEKDAY_NAMES = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const timeOfDay = (s: number) =>
  `${String(Math.floor(s / 3600)).padStart(2, "0")}:${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} UTC`;

function checkReward(reward: bigint) {
  if (reward < SUBSCRIPTION_LIMITS.minRewardPerRun || reward > SUBSCRIPTION_LIMITS.maxRewardPerRun) {
    throw apiError(
      "INVALID_REWARD",
      `rewardPerRun must be between ${SUBSCRIPTION_LIMITS.minRewardPerRun} and ${SUBSCRIPTION_LIMITS.maxRewardPerRun} USDC base units`,
    );
  }
}

/** The cadence of `instructions` as of chain time `now`, with the costs at fee rate `feeBps`. */
export function detect(instructions: string, reward: bigint, now: bigint, feeBps: bigint) {
  checkReward(reward);
  try {
    const c = parseCadence(instructions, now);
    return {
      cadence: c,
      detected: {
        cadence: c.cadence,
        interval: c.interval,
        everySeconds: c.everySeconds,
        totalRuns: c.totalRuns,
        startsAt: isoFromSeconds(c.startsAt),
        endsAt: isoOrNull(c.endsAt),
        nextRuns: nextRuns(c, PREVIEW_RUNS).map((t) => isoFromSeconds(t)),
        anchor: c.anchor && {
          ...(c.anchor.weekday === undefined ? {} : { weekday: WEEKDAY_NAMES[c.anchor.weekday]! }),
          ...(c.anchor.secondOfDay === undefined ? {} : { timeOfDay: timeOfDay(c.anchor.secondOfDay) }),
        },
        task: c.task,
      },
      costs: costsOf(reward, c.totalRuns, feeBps),
    };
  } catch (error) {
    if (error instanceof CadenceError) throw new ApiError(400, error.code, error.message, { cause: error });
    throw error;
  }
}

/** Each run's deadline: one interval after it is created, at least a day (the vault's terms.runDuration). */
const runDurationOf = (everySeconds: number) => Math.min(Math.max(everySeconds, DAY), 366 * DAY);

/** The vault terms of a cadence for `poster`, first run at `startsAt`. */
export function termsOf(cadence: Cadence, reward: bigint, poster: Address, startsAt: number) {
  return {
    subscriber: poster,
    rewardPerRun: reward,
    interval: cadence.everySeconds,
    startsAt,
    totalRuns: cadence.totalRuns ?? 0,
    runDuration: runDurationOf(cadence.everySeconds),
    maxRevisions: SUBSCRIPTION_RUN_MAX_REVISIONS,
  };
}

/** How long a preview's startsAt stays valid for creation. */
const START_GRACE_SECONDS = 900n;

/** A signed first run is the cadence's first run as of some moment in the last 15 minutes (chain time). */
export function checkStart(cadence: Cadence, startsAt: number, now: bigint) {
  const t = BigInt(startsAt);
  const ok = cadence.anchor
    ? t === firstRunAt(cadence.anchor, now) || t === firstRunAt(cadence.anchor, now - START_GRACE_SECONDS)
    : t <= now + 60n && t >= now - START_GRACE_SECONDS;
  if (!ok) {
    throw apiError(
      "INVALID_START",
      `startsAt ${startsAt} is not this cadence's first run (now ${now}: ${firstRunAt(cadence.anchor, now)}); take terms.startsAt from a fresh preview`,
    );
  }
}

export const SUBSCRIPTION_PREVIEW_LIMITS = {
  maxRuns: SUBSCRIPTION_LIMITS.maxRuns,
  maxDurationSeconds: SUBSCRIPTION_LIMITS.maxDurationSeconds,
  minIntervalSeconds: SUBSCRIPTION_LIMITS.minIntervalSeconds,
  minRewardPerRun: SUBSCRIPTION_LIMITS.minRewardPerRun.toString(),
  maxRewardPerRun: SUBSCRIPTION_LIMITS.maxRewardPerRun.toString(),
};

export interface PreviewSubscriptionParameters {
  instructions: string;
  rewardPerRun: bigint;
  /** With it, the poster's vault nonce (what its consent signs). */
  posterAddress?: Address;
}

export async function previewSubscription(deps: Deps, p: PreviewSubscriptionParameters) {
  const [now, { feeBps }] = await Promise.all([deps.clock.fresh(), deps.params.current()]);
  const { cadence, detected, costs } = detect(p.instructions, p.rewardPerRun, now, feeBps);
  const terms = termsOf(cadence, p.rewardPerRun, p.posterAddress as Address, Number(cadence.startsAt));
  const nonce = p.posterAddress
    ? await deps.chain.readContract({ ...vault(deps), functionName: "nonces", args: [getAddress(p.posterAddress)] })
    : undefined;
  return { detected, costs, vault: vault(deps).address, terms, nonce };
}
