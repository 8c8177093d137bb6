// Subscription cadence: natural language -> a schedule. Bounded ("daily for 30 days", "every 6 hours for 3 days",
// "every monday for 4 weeks", "twice a week for a month") or open-ended ("weekly", "daily", "every Monday at 9:00
// UTC", "twice a week": runs until the prepaid balance is spent or the subscription is cancelled). An optional
// time of day in UTC anchors daily and longer cadences. Pure and deterministic: the caller passes "now" (chain
// time, unix seconds). The rest of the text, without the cadence phrases, is the runs' task.

export const MINUTE = 60;
export const HOUR = 3_600;
export const DAY = 86_400;
export const WEEK = 7 * DAY;
/** "a month" is 30 days. */
export const MONTH = 30 * DAY;

/** Limits of a subscription (docs/subscriptions.md). */
export const SUBSCRIPTION_LIMITS = {
  /** Runs per subscription. */
  maxRuns: 366,
  /** From the first run to the end of the last interval. */
  maxDurationSeconds: 366 * DAY,
  /** Shortest time between two runs. */
  minIntervalSeconds: HOUR,
  /** Smallest reward per run: 0.01 USDC. */
  minRewardPerRun: 10_000n,
  /** Largest reward per run: 100,000 USDC. */
  maxRewardPerRun: 100_000_000_000n,
  /** Longest task text. */
  maxTaskLength: 4_000,
  /** Longest instructions text: parsing is linear in it, and the cap bounds the CPU of one parse. */
  maxInstructionsLength: 5_000,
} as const;

/**
 * Phrase matches kept per pattern. A valid text has one frequency and one duration; past a few, the text is
 * ambiguous anyway, and stopping keeps the overlap checks below constant-time.
 */
const MAX_MATCHES = 8;

import { feeOf } from "./fee.ts";

export { feeOf } from "./fee.ts";

export interface Cadence {
  /** The cadence phrases found, normalized: "daily for 30 days", "every monday at 09:00 UTC". */
  cadence: string;
  /** The frequency phrase: "daily", "every 6 hours", "twice a week", "every monday". */
  interval: string;
  everySeconds: number;
  /** Runs in all; null for an open-ended cadence (no duration: runs until the balance is spent or cancelled). */
  totalRuns: number | null;
  /** First run (unix seconds). */
  startsAt: bigint;
  /** End of the last run's interval: startsAt + totalRuns × everySeconds; null when open-ended. */
  endsAt: bigint | null;
  /** What fixes the first run: a weekday and/or a time of day (UTC), or nothing (the first run is due now). */
  anchor: { weekday?: number; secondOfDay?: number } | null;
  /** The instructions without the cadence phrases. */
  task: string;
}

export type CadenceErrorCode = "INVALID_CADENCE" | "SUBSCRIPTION_LIMIT_EXCEEDED" | "TASK_REQUIRED";

export class CadenceError extends Error {
  constructor(
    readonly code: CadenceErrorCode,
    message: string,
    readonly hint: string,
  ) {
    super(`${message}. ${hint}`);
  }
}

export const CADENCE_HINT =
  'Say how often, and optionally for how long, e.g. "daily for 30 days", "every 6 hours for 3 days", "weekly", ' +
  '"every monday at 9:00 UTC", "twice a week for a month", "hourly for 12 hours" or "daily for 10 runs".';

const WORD_NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  sixty: 60,
  ninety: 90,
};
const NUM = `(\\d{1,4}|${Object.keys(WORD_NUMBERS).join("|")})`;
const UNIT = "(minute|min|hour|hr|day|week|month)s?";
const UNIT_SECONDS: Record<string, number> = {
  minute: MINUTE,
  min: MINUTE,
  hour: HOUR,
  hr: HOUR,
  day: DAY,
  week: WEEK,
  month: MONTH,
};
const ADVERBS: Record<string, [number, string]> = {
  hourly: [HOUR, "hourly"],
  daily: [DAY, "daily"],
  nightly: [DAY, "daily"],
  weekly: [WEEK, "weekly"],
  fortnightly: [2 * WEEK, "every 2 weeks"],
  biweekly: [2 * WEEK, "every 2 weeks"],
  monthly: [MONTH, "monthly"],
};
const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

const num = (s: string): number => (/^\d+$/.test(s) ? Number(s) : WORD_NUMBERS[s]!);
const unitSeconds = (s: string): number => UNIT_SECONDS[s.replace(/s$/, "")]!;

interface Found {
  start: number;
  end: number;
}

interface Frequency extends Found {
  everySeconds: number;
  interval: string;
  weekday?: number;
}

interface TimeOfDay extends Found {
  secondOfDay: number;
}

interface Duration extends Found {
  seconds?: number;
  runs?: number;
  phrase: string;
}

/** The first MAX_MATCHES matches of a global regex: one linear scan, stopped early. */
function* firstMatches(text: string, re: RegExp): Generator<RegExpMatchArray> {
  let n = 0;
  for (const m of text.matchAll(re)) {
    yield m;
    if (++n >= MAX_MATCHES) return;
  }
}

function findFrequency(text: string): Frequency[] {
  const found: Frequency[] = [];
  const add = (m: RegExpMatchArray, everySeconds: number, interval: string, weekday?: number) =>
    found.push({ start: m.index!, end: m.index! + m[0].length, everySeconds, interval, weekday });
  // "twice a week", "3 times per day", "once a day"
  const times = new RegExp(`\\b(once|twice|thrice|${NUM} times) (?:a|an|per|each|every) (hour|day|week|month)\\b`, "g");
  for (const m of firstMatches(text, times)) {
    const n = m[1] === "once" ? 1 : m[1] === "twice" ? 2 : m[1] === "thrice" ? 3 : num(m[2]!);
    if (n < 1) continue;
    add(m, Math.floor(unitSeconds(m[3]!) / n), `${m[1]} a ${m[3]}`);
  }
  // "every 6 hours", "every day", "every other week", "each hour"
  const every = new RegExp(`\\b(?:every|each) (?:(other) |${NUM} )?${UNIT}\\b`, "g");
  for (const m of firstMatches(text, every)) {
    const n = m[1] ? 2 : m[2] ? num(m[2]) : 1;
    const unit = m[3]!.replace(/^min$/, "minute").replace(/^hr$/, "hour");
    add(m, n * unitSeconds(unit), n === 1 ? `every ${unit}` : `every ${n} ${unit}s`);
  }
  // "every monday", "on mondays", "each friday"
  const weekday = new RegExp(`\\b(?:every|each|on) (${WEEKDAYS.join("|")})s?\\b`, "g");
  for (const m of firstMatches(text, weekday)) add(m, WEEK, `every ${m[1]}`, WEEKDAYS.indexOf(m[1]!));
  // "daily", "weekly", ...
  const adverb = new RegExp(`\\b(${Object.keys(ADVERBS).join("|")})\\b`, "g");
  for (const m of firstMatches(text, adverb)) {
    const [seconds, label] = ADVERBS[m[1]!]!;
    add(m, seconds, label);
  }
  return found;
}

function findDuration(text: string): Duration[] {
  const found: Duration[] = [];
  // "for 30 days", "for a week", "for the next 3 months"
  const span = new RegExp(`\\bfor (?:the next |the following )?${NUM} ${UNIT}\\b`, "g");
  for (const m of firstMatches(text, span)) {
    const unit = m[2]!.replace(/^min$/, "minute").replace(/^hr$/, "hour");
    found.push({
      start: m.index!,
      end: m.index! + m[0].length,
      seconds: num(m[1]!) * unitSeconds(unit),
      phrase: m[0],
    });
  }
  // "for 10 runs", "10 times", "for 4 occurrences"
  const count = new RegExp(`\\b(?:for )?${NUM} (?:runs|times|occurrences)\\b`, "g");
  for (const m of firstMatches(text, count)) {
    found.push({ start: m.index!, end: m.index! + m[0].length, runs: num(m[1]!), phrase: m[0] });
  }
  return found;
}

/** Zone words we refuse rather than silently read as UTC. */
const OTHER_ZONES =
  "pst|pdt|est|edt|cst|cdt|mst|mdt|cet|cest|bst|ist|jst|aest|aedt|eet|eest|wet|west|hst|akst|akdt|msk|sgt|hkt|kst";

/** "at 9:00 UTC", "at 9am", "at 17:30", "at noon", "at midnight"; times are UTC. */
function findTimeOfDay(text: string): TimeOfDay[] {
  const found: TimeOfDay[] = [];
  const clock = new RegExp(
    `\\bat (?:(noon|midnight)|(\\d{1,2})(?::(\\d{2}))?(?: ?(am|pm)\\b)?)(?: ?(utc|gmt|z|${OTHER_ZONES})\\b)?`,
    "g",
  );
  for (const m of firstMatches(text, clock)) {
    const [, word, hourText, minuteText, meridiem, zone] = m;
    // A bare "at 5" is not a time ("look at 5 sites"): it needs minutes, am/pm, a zone or a word.
    if (!word && minuteText === undefined && !meridiem && !zone) continue;
    if (zone && !["utc", "gmt", "z"].includes(zone)) {
      throw new CadenceError(
        "INVALID_CADENCE",
        `times of day are in UTC; "${m[0]}" names another zone`,
        'Give the time in UTC, e.g. "every monday at 9:00 UTC".',
      );
    }
    let hour = word === "noon" ? 12 : word === "midnight" ? 0 : Number(hourText);
    const minute = minuteText === undefined ? 0 : Number(minuteText);
    if (meridiem) {
      if (hour < 1 || hour > 12) hour = 99;
      else hour = (hour % 12) + (meridiem === "pm" ? 12 : 0);
    }
    if (hour > 23 || minute > 59) {
      throw new CadenceError(
        "INVALID_CADENCE",
        `"${m[0]}" is not a time of day`,
        'Use 24-hour "at 17:30 UTC" or "at 9am".',
      );
    }
    found.push({ start: m.index!, end: m.index! + m[0].length, secondOfDay: hour * HOUR + minute * MINUTE });
  }
  return found;
}

const overlaps = (a: Found, b: Found) => a.start < b.end && b.start < a.end;

/**
 * The first run at or after `now` for an anchor: the next `weekday` (any day if none) at `secondOfDay` UTC
 * (00:00 if none); `now` itself without an anchor.
 */
export function firstRunAt(anchor: Cadence["anchor"], now: bigint): bigint {
  if (!anchor) return now;
  const dayStart = now - (now % BigInt(DAY));
  const at = BigInt(anchor.secondOfDay ?? 0);
  if (anchor.weekday === undefined) return dayStart + at >= now ? dayStart + at : dayStart + BigInt(DAY) + at;
  // 1970-01-01 was a Thursday (4).
  const today = Number((dayStart / BigInt(DAY) + 4n) % 7n);
  let ahead = (anchor.weekday - today + 7) % 7;
  if (ahead === 0 && dayStart + at < now) ahead = 7;
  return dayStart + BigInt(ahead * DAY) + at;
}

/** The first `n` run times of a schedule (fewer when it has fewer runs). */
export function nextRuns(c: Pick<Cadence, "startsAt" | "everySeconds" | "totalRuns">, n: number): bigint[] {
  const count = c.totalRuns === null ? n : Math.min(n, c.totalRuns);
  return Array.from({ length: count }, (_, i) => runTime(c.startsAt, c.everySeconds, i));
}

const hhmm = (secondOfDay: number) =>
  `${String(Math.floor(secondOfDay / HOUR)).padStart(2, "0")}:${String(Math.floor((secondOfDay % HOUR) / MINUTE)).padStart(2, "0")}`;

/** Parses `instructions` at chain time `now`; throws CadenceError with a code and a hint. */
export function parseCadence(instructions: string, now: bigint): Cadence {
  if (instructions.length > SUBSCRIPTION_LIMITS.maxInstructionsLength) {
    throw new CadenceError(
      "SUBSCRIPTION_LIMIT_EXCEEDED",
      `the instructions have ${instructions.length} characters`,
      `Keep them under ${SUBSCRIPTION_LIMITS.maxInstructionsLength}.`,
    );
  }
  // Lower case, one space between words; indices below refer to this text.
  const text = instructions.toLowerCase().replace(/\s+/g, " ").trim();
  const frequencies = findFrequency(text);
  const times = findTimeOfDay(text);
  const durations = findDuration(text).filter(
    (d) => !frequencies.some((f) => overlaps(f, d)) && !times.some((t) => overlaps(t, d)),
  );
  if (frequencies.length === 0) throw new CadenceError("INVALID_CADENCE", "no frequency found", CADENCE_HINT);
  // Overlapping frequency phrases ("every day" inside nothing else) count once; distinct ones are ambiguous.
  const distinct = frequencies.filter((f, i) => !frequencies.some((g, j) => j < i && overlaps(f, g)));
  if (distinct.length > 1) {
    throw new CadenceError(
      "INVALID_CADENCE",
      `more than one frequency ("${distinct
        .slice(0, 3)
        .map((f) => text.slice(f.start, f.end))
        .join('", "')}")`,
      CADENCE_HINT,
    );
  }
  if (durations.length > 1) {
    throw new CadenceError(
      "INVALID_CADENCE",
      `more than one duration ("${durations
        .slice(0, 3)
        .map((d) => d.phrase)
        .join('", "')}")`,
      CADENCE_HINT,
    );
  }
  if (times.length > 1) {
    throw new CadenceError(
      "INVALID_CADENCE",
      `more than one time of day ("${times
        .slice(0, 3)
        .map((t) => text.slice(t.start, t.end))
        .join('", "')}")`,
      "Give one time of day per subscription.",
    );
  }
  const frequency = distinct[0]!;
  const duration = durations[0];
  const time = times[0];

  const everySeconds = frequency.everySeconds;
  if (everySeconds < SUBSCRIPTION_LIMITS.minIntervalSeconds) {
    throw new CadenceError(
      "SUBSCRIPTION_LIMIT_EXCEEDED",
      `runs every ${everySeconds} s; the shortest interval is ${SUBSCRIPTION_LIMITS.minIntervalSeconds} s`,
      "Use hourly or a longer interval.",
    );
  }
  if (time && everySeconds < DAY) {
    throw new CadenceError(
      "INVALID_CADENCE",
      `a time of day needs a daily or longer interval, not "${frequency.interval}"`,
      'E.g. "daily at 9:00 UTC" or "every monday at 9:00 UTC".',
    );
  }
  const totalRuns = duration ? (duration.runs ?? Math.floor(duration.seconds! / everySeconds)) : null;
  if (duration && totalRuns !== null && totalRuns < 1) {
    throw new CadenceError(
      "INVALID_CADENCE",
      `"${duration.phrase}" is shorter than one interval ("${frequency.interval}")`,
      CADENCE_HINT,
    );
  }
  if (totalRuns !== null && totalRuns > SUBSCRIPTION_LIMITS.maxRuns) {
    throw new CadenceError(
      "SUBSCRIPTION_LIMIT_EXCEEDED",
      `${totalRuns} runs; at most ${SUBSCRIPTION_LIMITS.maxRuns} per subscription`,
      "Use a longer interval or a shorter duration.",
    );
  }
  if (totalRuns !== null && totalRuns * everySeconds > SUBSCRIPTION_LIMITS.maxDurationSeconds) {
    throw new CadenceError(
      "SUBSCRIPTION_LIMIT_EXCEEDED",
      `lasts ${Math.ceil((totalRuns * everySeconds) / DAY)} days; at most ${SUBSCRIPTION_LIMITS.maxDurationSeconds / DAY}`,
      "Use a shorter duration.",
    );
  }

  const cut: Found[] = [frequency, ...(duration ? [duration] : []), ...(time ? [time] : [])];
  const task = tidyTask(
    cut.sort((a, b) => b.start - a.start).reduce((t, f) => `${t.slice(0, f.start)} ${t.slice(f.end)}`, text),
  );
  // Keep the task's original casing: map back through the same whitespace normalization.
  const original = instructions.replace(/\s+/g, " ").trim();
  const cased = restoreCase(task, text, original, cut);
  if (cased.length === 0) {
    throw new CadenceError(
      "TASK_REQUIRED",
      "the instructions contain a cadence but no task",
      'Describe the work besides the cadence, e.g. "Summarize AI news daily for 30 days".',
    );
  }
  if (cased.length > SUBSCRIPTION_LIMITS.maxTaskLength) {
    throw new CadenceError(
      "SUBSCRIPTION_LIMIT_EXCEEDED",
      `the task has ${cased.length} characters`,
      `Keep it under ${SUBSCRIPTION_LIMITS.maxTaskLength}.`,
    );
  }

  const anchor =
    frequency.weekday === undefined && !time
      ? null
      : {
          ...(frequency.weekday === undefined ? {} : { weekday: frequency.weekday }),
          ...(time ? { secondOfDay: time.secondOfDay } : {}),
        };
  const startsAt = firstRunAt(anchor, now);
  const span = duration ? ` ${duration.phrase.startsWith("for ") ? duration.phrase : `for ${duration.phrase}`}` : "";
  return {
    cadence: `${frequency.interval}${time ? ` at ${hhmm(time.secondOfDay)} UTC` : ""}${span}`,
    interval: frequency.interval,
    everySeconds,
    totalRuns,
    startsAt,
    endsAt: totalRuns === null ? null : startsAt + BigInt(totalRuns * everySeconds),
    anchor,
    task: cased,
  };
}

/** The task cut from the original text (its casing kept), using the phrase positions found in the lower-cased copy. */
function restoreCase(lowerTask: string, lower: string, original: string, cut: Found[]): string {
  // toLowerCase keeps lengths for the characters we care about; if not (rare Unicode), fall back to lower case.
  if (lower.length !== original.length) return lowerTask;
  const kept = tidyTask(
    [...cut].sort((a, b) => b.start - a.start).reduce((t, f) => `${t.slice(0, f.start)} ${t.slice(f.end)}`, original),
  );
  return kept.toLowerCase() === lowerTask ? kept : lowerTask;
}

const LEADING = new Set([..." ,.;:-–—"]);
const TRAILING = new Set([..." ,;:-–—"]);

/**
 * The task left after cutting the cadence phrases: single spaces, no space before punctuation, no separators or
 * dangling "and"/"then" at either end. Loops instead of `[...]+$` patterns, whose backtracking is quadratic on
 * long runs of separators.
 */
function tidyTask(raw: string): string {
  let t = raw.replace(/\s+/g, " ").replace(/ ([,.;:!?])/g, "$1");
  let start = 0;
  let end = t.length;
  while (start < end && LEADING.has(t[start]!)) start++;
  while (end > start && TRAILING.has(t[end - 1]!)) end--;
  t = t.slice(start, end);
  const lower = t.toLowerCase();
  if (lower.startsWith("and ") || lower.startsWith("then ")) t = t.slice(t.indexOf(" ") + 1);
  if (/ (?:and|then)$/i.test(t.slice(-5))) t = t.slice(0, t.lastIndexOf(" "));
  return t.trim();
}

/** Run `index` (0-based) of a schedule. */
export const runTime = (startsAt: bigint, everySeconds: number, index: number): bigint =>
  startsAt + BigInt(index) * BigInt(everySeconds);

export interface Costs {
  rewardPerRun: string;
  platformFeePerRun: string;
  totalPerRun: string;
  totalRuns: number | null;
  /** Every run of a bounded schedule; null when open-ended (prepay any number of runs). */
  total: string | null;
}

/** `feeBps`: the escrow's current fee rate (the vault pays it per run at the rate then in force). */
export function costsOf(rewardPerRun: bigint, totalRuns: number | null, feeBps: bigint): Costs {
  const fee = feeOf(rewardPerRun, feeBps);
  const perRun = rewardPerRun + fee;
  return {
    rewardPerRun: rewardPerRun.toString(),
    platformFeePerRun: fee.toString(),
    totalPerRun: perRun.toString(),
    totalRuns,
    total: totalRuns === null ? null : (perRun * BigInt(totalRuns)).toString(),
  };
}
