import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  CadenceError,
  costsOf,
  DAY,
  firstRunAt,
  HOUR,
  MONTH,
  nextRuns,
  parseCadence,
  runTime,
  SUBSCRIPTION_LIMITS,
  WEEK,
} from "../src/domain/cadence.ts";

// 2025-01-01T12:00:00Z, a Wednesday.
const NOW = BigInt(Date.UTC(2025, 0, 1, 12) / 1000);

function rejects(text: string, code: string, pattern?: RegExp) {
  assert.throws(
    () => parseCadence(text, NOW),
    (e: unknown) => {
      assert.ok(e instanceof CadenceError, `expected CadenceError for "${text}"`);
      assert.equal(e.code, code, `code for "${text}": ${e.message}`);
      if (pattern) assert.match(e.message, pattern);
      assert.ok(e.hint.length > 0);
      return true;
    },
  );
}

describe("parseCadence", () => {
  const cases: [string, number, number, string, string][] = [
    ["Summarize AI news daily for 30 days", DAY, 30, "daily", "Summarize AI news"],
    ["Every day for a week, check the uptime of example.com", DAY, 7, "every day", "check the uptime of example.com"],
    ["weekly for 8 weeks: write a market report", WEEK, 8, "weekly", "write a market report"],
    ["Scrape prices every 6 hours for 3 days", 6 * HOUR, 12, "every 6 hours", "Scrape prices"],
    ["Post a digest twice a week for a month", WEEK / 2, 8, "twice a week", "Post a digest"],
    ["hourly for 12 hours ping the endpoint", HOUR, 12, "hourly", "ping the endpoint"],
    ["Translate the changelog every other day for 10 days", 2 * DAY, 5, "every 2 days", "Translate the changelog"],
    ["Back up the db 3 times a day for two days", DAY / 3, 6, "3 times a day", "Back up the db"],
    ["Review PRs daily for 10 runs", DAY, 10, "daily", "Review PRs"],
    ["Audit logs every 12 hours for the next 2 days", 12 * HOUR, 4, "every 12 hours", "Audit logs"],
    ["Monthly for 3 months: rebalance the portfolio", MONTH, 3, "monthly", "rebalance the portfolio"],
    ["Check feeds each hour for one day", HOUR, 24, "every hour", "Check feeds"],
    ["Write a haiku once a day for 5 days", DAY, 5, "once a day", "Write a haiku"],
    ["Fortnightly for 6 weeks, send the newsletter", 2 * WEEK, 3, "every 2 weeks", "send the newsletter"],
  ];
  for (const [text, every, runs, interval, task] of cases) {
    it(`parses "${text}"`, () => {
      const c = parseCadence(text, NOW);
      assert.equal(c.everySeconds, every);
      assert.equal(c.totalRuns, runs);
      assert.equal(c.interval, interval);
      assert.equal(c.task, task);
      assert.equal(c.startsAt, NOW);
      assert.equal(c.endsAt, NOW + BigInt(runs * every));
    });
  }

  it("ignores case and extra whitespace", () => {
    const c = parseCadence("  DAILY   FOR  30   DAYS   Summarize   news ", NOW);
    assert.equal(c.totalRuns, 30);
    assert.equal(c.task, "Summarize news");
    assert.equal(c.cadence, "daily for 30 days");
  });

  it("starts a weekday cadence on the next such day at 00:00 UTC", () => {
    const c = parseCadence("every monday for 4 weeks send the report", NOW);
    assert.equal(c.everySeconds, WEEK);
    assert.equal(c.totalRuns, 4);
    assert.equal(c.interval, "every monday");
    assert.equal(c.startsAt, BigInt(Date.UTC(2025, 0, 6) / 1000)); // Monday 6 January
    assert.equal(new Date(Number(c.startsAt) * 1000).getUTCDay(), 1);
    // Today (Wednesday) after midnight: the next Wednesday, not today.
    assert.equal(parseCadence("on wednesdays for 2 weeks do x", NOW).startsAt, BigInt(Date.UTC(2025, 0, 8) / 1000));
    // Exactly at midnight on that day: today.
    const midnight = BigInt(Date.UTC(2025, 0, 1) / 1000);
    assert.equal(parseCadence("every wednesday for 2 weeks do x", midnight).startsAt, midnight);
  });

  it("is deterministic", () => {
    const a = parseCadence("Scrape prices every 6 hours for 3 days", NOW);
    assert.deepEqual(parseCadence("Scrape prices every 6 hours for 3 days", NOW), a);
  });

  it("rejects text without a frequency", () => {
    rejects("Summarize AI news", "INVALID_CADENCE", /no frequency/);
    rejects("Summarize AI news for 30 days", "INVALID_CADENCE", /no frequency/);
    rejects("", "INVALID_CADENCE");
    rejects("every fortnight for a year", "INVALID_CADENCE");
  });

  it("rejects ambiguous cadences", () => {
    rejects("daily and weekly for 30 days do x", "INVALID_CADENCE", /more than one frequency/);
    rejects("daily for 30 days for 2 weeks do x", "INVALID_CADENCE", /more than one duration/);
  });

  it("rejects a duration shorter than one interval", () => {
    rejects("weekly for 3 days do x", "INVALID_CADENCE", /shorter than one interval/);
  });

  it("enforces the limits", () => {
    rejects("every 30 minutes for a day do x", "SUBSCRIPTION_LIMIT_EXCEEDED", /shortest interval/);
    rejects("hourly for 30 days do x", "SUBSCRIPTION_LIMIT_EXCEEDED", /at most 366/);
    rejects("monthly for 13 months do x", "SUBSCRIPTION_LIMIT_EXCEEDED", /at most 366/);
    rejects("daily for 400 runs do x", "SUBSCRIPTION_LIMIT_EXCEEDED");
    rejects(`daily for 3 days ${"x".repeat(SUBSCRIPTION_LIMITS.maxTaskLength + 1)}`, "SUBSCRIPTION_LIMIT_EXCEEDED");
    // At the limits: accepted.
    assert.equal(parseCadence("daily for 366 days do x", NOW).totalRuns, 366);
    assert.equal(parseCadence("hourly for 12 hours do x", NOW).totalRuns, 12);
  });

  it("requires a task", () => {
    rejects("daily for 30 days", "TASK_REQUIRED");
    rejects("  Daily for 30 days.  ", "TASK_REQUIRED");
  });
});

describe("open-ended cadences and times of day", () => {
  const MONDAY_9 = BigInt(Date.UTC(2025, 0, 6, 9) / 1000); // the Monday after NOW, 09:00 UTC
  const open: [string, number, string, string, bigint][] = [
    ["Summarize AI news daily", DAY, "daily", "Summarize AI news", NOW],
    ["weekly: write a market report", WEEK, "weekly", "write a market report", NOW],
    ["Send the report every Monday at 9:00 UTC", WEEK, "every monday at 09:00 UTC", "Send the report", MONDAY_9],
    ["Post a digest twice a week", WEEK / 2, "twice a week", "Post a digest", NOW],
    ["Check the feed every 6 hours", 6 * HOUR, "every 6 hours", "Check the feed", NOW],
    ["daily at 17:30 utc, back up the db", DAY, "daily at 17:30 UTC", "back up the db", NOW + BigInt(5.5 * HOUR)],
    ["daily at 9am post the standup", DAY, "daily at 09:00 UTC", "post the standup", NOW + BigInt(21 * HOUR)],
    ["every friday at noon ping the team", WEEK, "every friday at 12:00 UTC", "ping the team", NOW + BigInt(2 * DAY)],
  ];
  for (const [text, every, cadence, task, startsAt] of open) {
    it(`parses "${text}" as open-ended`, () => {
      const c = parseCadence(text, NOW);
      assert.equal(c.everySeconds, every);
      assert.equal(c.totalRuns, null);
      assert.equal(c.endsAt, null);
      assert.equal(c.cadence, cadence);
      assert.equal(c.task, task);
      assert.equal(c.startsAt, startsAt);
    });
  }

  it("anchors a bounded cadence too", () => {
    const c = parseCadence("every monday at 9:00 UTC for 4 weeks send the report", NOW);
    assert.equal(c.totalRuns, 4);
    assert.equal(c.startsAt, MONDAY_9);
    assert.equal(c.endsAt, MONDAY_9 + BigInt(4 * WEEK));
    assert.equal(c.cadence, "every monday at 09:00 UTC for 4 weeks");
    assert.equal(c.task, "send the report");
  });

  it("lists the next runs: a few for open-ended cadences, at most the schedule for bounded ones", () => {
    const weekly = parseCadence("Send the report every Monday at 9:00 UTC", NOW);
    assert.deepEqual(
      nextRuns(weekly, 3).map((t) => new Date(Number(t) * 1000).toISOString()),
      ["2025-01-06T09:00:00.000Z", "2025-01-13T09:00:00.000Z", "2025-01-20T09:00:00.000Z"],
    );
    const twice = parseCadence("Post a digest twice a week", NOW);
    assert.deepEqual(nextRuns(twice, 3), [NOW, NOW + BigInt(WEEK / 2), NOW + BigInt(WEEK)]);
    assert.equal(nextRuns(parseCadence("do x daily for 2 days", NOW), 5).length, 2);
  });

  it("computes the first run at or after a time for each anchor", () => {
    const day = BigInt(Date.UTC(2025, 0, 1) / 1000); // Wednesday 00:00
    assert.equal(firstRunAt(null, NOW), NOW);
    assert.equal(firstRunAt({ secondOfDay: 12 * HOUR }, NOW), NOW, "exactly at the time: now");
    assert.equal(firstRunAt({ secondOfDay: 12 * HOUR }, NOW + 1n), day + BigInt(DAY + 12 * HOUR));
    assert.equal(firstRunAt({ weekday: 3, secondOfDay: 13 * HOUR }, NOW), day + BigInt(13 * HOUR));
    assert.equal(firstRunAt({ weekday: 3, secondOfDay: 11 * HOUR }, NOW), day + BigInt(WEEK + 11 * HOUR));
  });

  it("refuses times it cannot honour", () => {
    rejects("do x every monday at 9:00 PST", "INVALID_CADENCE", /UTC/);
    rejects("do x daily at 25:00", "INVALID_CADENCE", /not a time of day/);
    rejects("do x daily at 13pm", "INVALID_CADENCE", /not a time of day/);
    rejects("do x hourly at 9:00 UTC", "INVALID_CADENCE", /daily or longer/);
    rejects("do x daily at 9:00 UTC and at 10:00 UTC", "INVALID_CADENCE", /more than one time/);
    rejects("every monday at 9:00 UTC", "TASK_REQUIRED");
  });

  it("does not read a bare number after 'at' as a time", () => {
    const c = parseCadence("look at 5 sites daily", NOW);
    assert.equal(c.task, "look at 5 sites");
    assert.equal(c.anchor, null);
    assert.equal(parseCadence("look at 9 amazing sites daily", NOW).anchor, null);
  });

  it("costs of an open-ended cadence are per run only", () => {
    assert.deepEqual(costsOf(1_000_000n, null, 500n), {
      rewardPerRun: "1000000",
      platformFeePerRun: "50000",
      totalPerRun: "1050000",
      totalRuns: null,
      total: null,
    });
  });
});

describe("parse cost on adversarial input (public, unsigned GET /api/subscriptions/parse-cadence)", () => {
  // Texts built to make a naive parser do the most work: many phrase matches to compare pairwise, long runs of
  // separators for trimming patterns to backtrack over, numbers and units that almost match.
  const units = [
    "daily ",
    "daily,",
    "3 times a day ",
    "9999 each min ",
    "every other ",
    "for 1 day ",
    ", ",
    "-",
    "and ",
  ];
  const build = (unit: string, length: number) => `daily for 30 days ${unit.repeat(length / unit.length)}x`;
  const bestOf = (n: number, f: () => void) => {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      f();
      best = Math.min(best, performance.now() - t);
    }
    return best;
  };
  const attempt = (text: string) => () => {
    try {
      parseCadence(text, NOW);
    } catch (e) {
      if (!(e instanceof CadenceError)) throw e;
    }
  };

  it("refuses text over the cap before parsing it (a 200 KB text costs no more than a short one)", () => {
    for (const unit of units) {
      const text = build(unit, 200_000);
      rejects(text, "SUBSCRIPTION_LIMIT_EXCEEDED", /characters/);
      const ms = bestOf(3, attempt(text));
      assert.ok(ms < 20, `${JSON.stringify(unit)} x 200 KB took ${ms.toFixed(1)} ms`);
    }
  });

  it("parses any text up to the cap in bounded time", () => {
    const length = SUBSCRIPTION_LIMITS.maxInstructionsLength - 40;
    for (const unit of units) {
      const text = build(unit, length);
      assert.ok(text.length <= SUBSCRIPTION_LIMITS.maxInstructionsLength);
      const ms = bestOf(5, attempt(text));
      assert.ok(ms < 15, `${JSON.stringify(unit)} x ${length} took ${ms.toFixed(1)} ms`);
    }
  });

  it("names at most three of the phrases it found ambiguous", () => {
    rejects(build("weekly ", 4_000), "INVALID_CADENCE", /^more than one frequency \("daily", "weekly", "weekly"\)/);
  });
});

describe("costs and schedule", () => {
  it("adds the 5% fee per run, in base units", () => {
    assert.deepEqual(costsOf(1_000_000n, 30, 500n), {
      rewardPerRun: "1000000",
      platformFeePerRun: "50000",
      totalPerRun: "1050000",
      totalRuns: 30,
      total: "31500000",
    });
    // The fee rounds up like the escrow's ceil(reward * 500 / 10000).
    assert.equal(costsOf(10_019n, 3, 500n).platformFeePerRun, "501");
    assert.equal(costsOf(10_019n, 3, 500n).total, String((10_019 + 501) * 3));
  });

  it("computes run times from the start", () => {
    assert.equal(runTime(100n, 3600, 0), 100n);
    assert.equal(runTime(100n, 3600, 5), 100n + 5n * 3600n);
  });
});
