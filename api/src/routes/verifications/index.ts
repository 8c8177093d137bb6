// Verifications (badges): domain control by DNS TXT record, USDC locked in the StakeVault read on chain, and server-graded skill
// tests. The spec gives these endpoints no credentials; a badge only ever reflects a fact anyone can check.
import { randomBytes } from "node:crypto";
import { StakeVaultAbi } from "@agenthub/common/generated/abis";
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../../context.ts";
import { DOMAIN_BADGE, SKILL_NAMES, type SkillName, skillBadge, stakeBadge } from "../../domain/reputation.ts";
import { recomputeSoon } from "../../domain/reputation-store.ts";
import { ApiError, errors } from "../../errors.ts";
import { chainClock } from "../../lib/chain-time.ts";
import { router } from "../../lib/openapi.ts";
import { baseUnits, errorResponses, errorSchema, json, jsonBody } from "../../lib/schemas.ts";
import { emitOrgEvent } from "../../webhooks/emit.ts";
import { lookupTxt } from "./dns.ts";
import {
  addMonths,
  agentFacts,
  COLUMNS,
  dnsRecordFor,
  effectiveStatus,
  findVerification,
  isoAt,
  toView,
  type VerificationRow,
  verificationSchema,
} from "./repository.ts";
import { ATTEMPT_TTL_SECONDS, type DrawnQuestion, drawQuestions, gradeAttempt } from "./skill-attempts.ts";
import { SKILL_PASS_SCORE, SKILL_RETAKE_SECONDS } from "./skills.ts";

/** How long a PENDING domain or stake request can be verified (DNS propagation may take up to 48 hours). */
const CHALLENGE_SECONDS = 7n * 86_400n;
const VALIDITY_MONTHS = { domain: 12, stake: 6, skill: 24 } as const;

const id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const idParam = z.object({ id: id.openapi({ param: { name: "id", in: "path" }, example: 1 }) });
const agentIdParam = z.object({ agentId: id.openapi({ param: { name: "agentId", in: "path" }, example: 1 }) });
const agentId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

const domainName = z
  .string()
  .trim()
  .toLowerCase()
  .transform((d) => d.replace(/\.$/, ""))
  .refine(
    (d) =>
      d.length <= 253 && /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/.test(d) && !/^[0-9.]+$/.test(d),
    "must be a domain name such as example.com",
  );

const verificationOut = z.object({ verification: verificationSchema });

const domainRoute = createRoute({
  method: "post",
  path: "/api/verifications/domain",
  tags: ["verifications"],
  summary: "Request a domain verification (publish the dnsRecord as TXT at _hub.<domain>)",
  request: { body: jsonBody(z.object({ agentId, domain: domainName })) },
  responses: {
    201: json(verificationOut.extend({ instructions: z.string() }), "PENDING verification"),
    ...errorResponses(400, 404),
  },
});

const verifyRoute = createRoute({
  method: "post",
  path: "/api/verifications/{id}/verify",
  tags: ["verifications"],
  summary: "Check the TXT record of a domain verification (also renews a VERIFIED one)",
  request: { params: idParam },
  responses: { 200: json(verificationOut, "VERIFIED verification"), ...errorResponses(400, 404, 503) },
});

const stakeRoute = createRoute({
  method: "post",
  path: "/api/verifications/stake",
  tags: ["verifications"],
  summary: "Request a stake verification: USDC the agent keeps locked in the StakeVault",
  request: { body: jsonBody(z.object({ agentId, minStakeAmount: baseUnits })) },
  responses: { 201: json(verificationOut, "PENDING verification"), ...errorResponses(400, 404) },
});

const verifyStakeRoute = createRoute({
  method: "post",
  path: "/api/verifications/{id}/verify-stake",
  tags: ["verifications"],
  summary:
    "Read the agent's active stake in the StakeVault on chain (deposits minus pending withdrawals); the badge lapses when it falls below the minimum",
  request: { params: idParam },
  responses: { 200: json(verificationOut, "VERIFIED verification"), ...errorResponses(400, 404) },
});

const skillBody = z.object({
  agentId,
  skillName: z.string().min(1).max(64),
  attemptId: z.string().min(1).max(64).openapi({
    description: "From POST /api/verifications/skill/{skillName}/attempts: the questions answered were drawn for it",
  }),
  testResults: z.object({
    // Accepted for compatibility and ignored: the server grades the answers itself.
    score: z.number().min(0).max(100).optional(),
    passed: z.boolean().optional(),
    questions: z
      .array(
        z.object({
          question: z.string().max(1000),
          answer: z.string().max(1000),
          correct: z.boolean().optional(),
        }),
      )
      .max(100),
  }),
});

const skillRoute = createRoute({
  method: "post",
  path: "/api/verifications/skill",
  tags: ["verifications"],
  summary: "Submit a skill test (graded by the server; pass at 80, retake after 24 h, the highest score counts)",
  request: { body: jsonBody(skillBody) },
  responses: {
    201: json(verificationOut, "VERIFIED verification"),
    400: json(errorSchema.extend({ verification: verificationSchema.optional() }), "FAILED test or bad input"),
    ...errorResponses(404, 429),
  },
});

const attemptRoute = createRoute({
  method: "post",
  path: "/api/verifications/skill/{skillName}/attempts",
  tags: ["verifications"],
  summary:
    "Draw a fresh skill test for an agent: 10 questions (6 computed from random parameters, 4 from the bank), answerable once within 30 minutes",
  request: {
    params: z.object({ skillName: z.string().openapi({ param: { name: "skillName", in: "path" } }) }),
    body: jsonBody(z.object({ agentId })),
  },
  responses: {
    201: json(
      z.object({
        attemptId: z.string(),
        skillName: z.string(),
        passScore: z.number(),
        expiresAt: z.string(),
        questions: z.array(z.object({ question: z.string(), options: z.array(z.string()) })),
      }),
      "Questions (without answers)",
    ),
    ...errorResponses(400, 404),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/api/verifications/agent/{agentId}",
  tags: ["verifications"],
  request: { params: agentIdParam },
  responses: {
    200: json(z.object({ agentId: z.number(), verifications: z.array(verificationSchema) }), "Verifications"),
    ...errorResponses(404),
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/api/verifications/{id}",
  tags: ["verifications"],
  request: { params: idParam },
  responses: { 200: json(verificationOut, "Verification"), ...errorResponses(404) },
});

/** "verification.completed" for an organization agent's new or renewed badge. */
const verificationCompleted = (deps: Deps, v: z.infer<typeof verificationSchema>) =>
  emitOrgEvent(deps, "verification.completed", v.agentId, {
    verificationId: v.id,
    agentId: v.agentId,
    type: v.type,
    status: v.status,
    badge: v.badge ?? null,
    ...(v.domain ? { domain: v.domain } : {}),
    ...(v.skillName ? { skillName: v.skillName, score: v.score ?? null } : {}),
  });

const notFound = (vid: number) => errors.notFound("VERIFICATION_NOT_FOUND", `verification ${vid} does not exist`);

function assertUsable(row: VerificationRow, type: VerificationRow["type"], now: bigint) {
  if (row.type !== type) {
    const use = row.type === "stake" ? "verify-stake" : row.type === "domain" ? "verify" : "a new skill submission";
    throw new ApiError(
      400,
      "WRONG_VERIFICATION_TYPE",
      `verification ${row.id} is a ${row.type} verification; use ${use}`,
    );
  }
  if (effectiveStatus(row, now) === "EXPIRED") {
    throw new ApiError(400, "VERIFICATION_EXPIRED", `verification ${row.id} has expired; request a new one`);
  }
  if (row.status === "FAILED") {
    throw new ApiError(400, "VERIFICATION_FAILED", `verification ${row.id} failed; request a new one`);
  }
}

export const verificationRoutes = router()
  .openapi(domainRoute, async (c) => {
    const deps = c.get("deps");
    const body = c.req.valid("json");
    if (!(await agentFacts(deps, body.agentId))) throw errors.agentNotFound(body.agentId);
    const now = await chainClock(deps).now();
    const taken = await deps.pool.query(
      `select 1 from api.verification
        where type = 'domain' and domain = $1 and status = 'VERIFIED' and expires_at > $2::timestamptz limit 1`,
      [body.domain, isoAt(now)],
    );
    if (taken.rowCount) {
      throw new ApiError(400, "DOMAIN_ALREADY_VERIFIED", `${body.domain} is already verified`);
    }
    const token = randomBytes(16).toString("hex");
    const { rows } = await deps.pool.query<VerificationRow>(
      `insert into api.verification (agent_id, type, status, domain, token, created_at, expires_at)
       values ($1, 'domain', 'PENDING', $2, $3, $4::timestamptz, $5::timestamptz) returning ${COLUMNS}`,
      [body.agentId, body.domain, token, isoAt(now), isoAt(now + CHALLENGE_SECONDS)],
    );
    const row = rows[0]!;
    return c.json(
      {
        verification: toView(row, now),
        instructions:
          `Publish a DNS TXT record at _hub.${body.domain} with the value ${dnsRecordFor(token)}, then call ` +
          `POST /api/verifications/${row.id}/verify. Propagation may take minutes to 48 hours; this request can be ` +
          `verified until ${row.expires_at!.toISOString()}. A verified domain is valid for 1 year; verify again to renew.`,
      },
      201,
    );
  })
  .openapi(verifyRoute, async (c) => {
    const deps = c.get("deps");
    const { id: vid } = c.req.valid("param");
    const row = await findVerification(deps.pool, vid);
    if (!row) throw notFound(vid);
    const now = await chainClock(deps).now();
    assertUsable(row, "domain", now);
    const domain = row.domain!;
    // A lapsed badge of another agent no longer holds the domain.
    await deps.pool.query(
      `update api.verification set status = 'EXPIRED'
        where type = 'domain' and domain = $1 and status = 'VERIFIED' and expires_at <= $2::timestamptz`,
      [domain, isoAt(now)],
    );
    const other = await deps.pool.query(
      "select id from api.verification where type = 'domain' and domain = $1 and status = 'VERIFIED' and id <> $2",
      [domain, vid],
    );
    if (other.rowCount) throw new ApiError(400, "DOMAIN_ALREADY_VERIFIED", `${domain} is already verified`);

    const expected = dnsRecordFor(row.token!);
    const values = await lookupTxt(deps, `_hub.${domain}`);
    await deps.pool.query("update api.verification set last_checked_at = $2::timestamptz where id = $1", [
      vid,
      isoAt(now),
    ]);
    if (!values.some((v) => v.trim() === expected)) {
      throw new ApiError(
        400,
        "DNS_RECORD_NOT_FOUND",
        `no TXT record "${expected}" at _hub.${domain} (found ${values.length} TXT value(s)); DNS changes may take up to 48 hours`,
      );
    }
    let updated: VerificationRow;
    try {
      const r = await deps.pool.query<VerificationRow>(
        `update api.verification set status = 'VERIFIED', badge = $2, verified_at = $3::timestamptz,
                expires_at = $4::timestamptz
          where id = $1 and status in ('PENDING', 'VERIFIED') returning ${COLUMNS}`,
        [vid, DOMAIN_BADGE, isoAt(now), addMonths(now, VALIDITY_MONTHS.domain).toISOString()],
      );
      if (!r.rows[0]) throw new ApiError(400, "VERIFICATION_EXPIRED", `verification ${vid} has expired`);
      updated = r.rows[0];
    } catch (err) {
      if ((err as { code?: string }).code === "23505") {
        throw new ApiError(400, "DOMAIN_ALREADY_VERIFIED", `${domain} is already verified`);
      }
      throw err;
    }
    await recomputeSoon(deps, [Number(updated.agent_id)], "verification");
    await verificationCompleted(deps, toView(updated, now));
    return c.json({ verification: toView(updated, now) }, 200);
  })
  .openapi(stakeRoute, async (c) => {
    const deps = c.get("deps");
    const body = c.req.valid("json");
    if (!(await agentFacts(deps, body.agentId))) throw errors.agentNotFound(body.agentId);
    if (!stakeBadge(BigInt(body.minStakeAmount))) {
      throw new ApiError(
        400,
        "STAKE_BELOW_BADGE_MINIMUM",
        "minStakeAmount must be at least 100000000 (100 USDC), the smallest stake badge",
      );
    }
    const now = await chainClock(deps).now();
    const { rows } = await deps.pool.query<VerificationRow>(
      `insert into api.verification (agent_id, type, status, min_stake_amount, created_at, expires_at)
       values ($1, 'stake', 'PENDING', $2::numeric, $3::timestamptz, $4::timestamptz) returning ${COLUMNS}`,
      [body.agentId, body.minStakeAmount, isoAt(now), isoAt(now + CHALLENGE_SECONDS)],
    );
    return c.json({ verification: toView(rows[0]!, now) }, 201);
  })
  .openapi(verifyStakeRoute, async (c) => {
    const deps = c.get("deps");
    const { id: vid } = c.req.valid("param");
    const row = await findVerification(deps.pool, vid);
    if (!row) throw notFound(vid);
    const now = await chainClock(deps).now();
    assertUsable(row, "stake", now);
    if (!(await agentFacts(deps, Number(row.agent_id)))) throw errors.agentNotFound(row.agent_id);
    // Stake locked in the StakeVault for this agent (withdrawal requests excluded), read from the chain: a wallet
    // balance proves nothing, it can be borrowed for one block.
    const balance = await deps.chain.readContract({
      address: deps.deployments.contracts.StakeVault.address,
      abi: StakeVaultAbi,
      functionName: "activeStakeOf",
      args: [BigInt(row.agent_id)],
    });
    const min = BigInt(row.min_stake_amount!);
    await deps.pool.query("update api.verification set last_checked_at = $2::timestamptz where id = $1", [
      vid,
      isoAt(now),
    ]);
    if (balance < min) {
      throw new ApiError(
        400,
        "INSUFFICIENT_BALANCE",
        `agent ${row.agent_id} has ${balance} USDC base units staked in the StakeVault (not pending withdrawal), below the requested ${min}`,
      );
    }
    const r = await deps.pool.query<VerificationRow>(
      `update api.verification set status = 'VERIFIED', actual_balance = $2::numeric, badge = $3,
              verified_at = $4::timestamptz, expires_at = $5::timestamptz
        where id = $1 and status in ('PENDING', 'VERIFIED') returning ${COLUMNS}`,
      [vid, balance.toString(), stakeBadge(min), isoAt(now), addMonths(now, VALIDITY_MONTHS.stake).toISOString()],
    );
    if (!r.rows[0]) throw new ApiError(400, "VERIFICATION_EXPIRED", `verification ${vid} has expired`);
    await recomputeSoon(deps, [Number(row.agent_id)], "verification");
    await verificationCompleted(deps, toView(r.rows[0], now));
    return c.json({ verification: toView(r.rows[0], now) }, 200);
  })
  .openapi(skillRoute, async (c) => {
    const deps = c.get("deps");
    const body = c.req.valid("json");
    if (!(SKILL_NAMES as readonly string[]).includes(body.skillName)) {
      throw new ApiError(400, "UNKNOWN_SKILL", `skillName must be one of ${SKILL_NAMES.join(", ")}`);
    }
    const skill = body.skillName as SkillName;
    if (!(await agentFacts(deps, body.agentId))) throw errors.agentNotFound(body.agentId);
    const now = await chainClock(deps).now();

    const client = await deps.pool.connect();
    let row: VerificationRow;
    let passed = false;
    try {
      await client.query("begin");
      // One attempt at a time per (agent, skill), so two parallel submissions cannot both pass the 24-hour rule.
      await client.query("select pg_advisory_xact_lock(hashtext($1))", [`skill:${body.agentId}:${skill}`]);
      // The answers are graded against the questions drawn for this attempt, which is then spent.
      const attempt = await client.query<{ questions: DrawnQuestion[] }>(
        `update api.skill_attempt set used_at = now()
          where id = $1 and agent_id = $2 and skill_name = $3 and used_at is null and expires_at > now()
          returning questions`,
        [body.attemptId, body.agentId, skill],
      );
      if (!attempt.rows[0]) {
        throw new ApiError(
          400,
          "INVALID_SKILL_ATTEMPT",
          `attempt ${body.attemptId} is unknown, for another agent or skill, already answered or past its 30 minutes; draw one with POST /api/verifications/skill/${skill}/attempts`,
        );
      }
      const last = await client.query<{ created_at: Date }>(
        `select created_at from api.verification
          where type = 'skill' and agent_id = $1 and skill_name = $2 order by created_at desc limit 1`,
        [body.agentId, skill],
      );
      if (last.rows[0]) {
        const lastAt = BigInt(Math.floor(last.rows[0].created_at.getTime() / 1000));
        const wait = lastAt + SKILL_RETAKE_SECONDS - now;
        if (wait > 0n) {
          c.header("Retry-After", wait.toString());
          throw new ApiError(
            429,
            "SKILL_RETAKE_TOO_SOON",
            `the ${skill} test can be retaken after ${isoAt(lastAt + SKILL_RETAKE_SECONDS)} (24 hours after the last attempt)`,
          );
        }
      }
      const grade = gradeAttempt(attempt.rows[0].questions, body.testResults.questions);
      passed = grade.score >= SKILL_PASS_SCORE;
      const best = await client.query<{ best: number | null }>(
        `select max(score) best from api.verification
          where type = 'skill' and agent_id = $1 and skill_name = $2 and status = 'VERIFIED' and expires_at > $3::timestamptz`,
        [body.agentId, skill, isoAt(now)],
      );
      const message = passed
        ? null
        : `scored ${grade.score} (${grade.correct}/${grade.total} correct); ${SKILL_PASS_SCORE} is needed to pass. ` +
          `Retake after ${isoAt(now + SKILL_RETAKE_SECONDS)}` +
          (best.rows[0]?.best ? `; your verified best of ${best.rows[0].best} still counts.` : ".");
      const r = await client.query<VerificationRow>(
        `insert into api.verification
           (agent_id, type, status, skill_name, score, answers, badge, message, created_at, verified_at, expires_at)
         values ($1, 'skill', $2, $3, $4, $5::jsonb, $6, $7, $8::timestamptz, $9::timestamptz, $10::timestamptz)
         returning ${COLUMNS}`,
        [
          body.agentId,
          passed ? "VERIFIED" : "FAILED",
          skill,
          grade.score,
          JSON.stringify(grade.graded),
          passed ? skillBadge(skill) : null,
          message,
          isoAt(now),
          passed ? isoAt(now) : null,
          passed ? addMonths(now, VALIDITY_MONTHS.skill).toISOString() : null,
        ],
      );
      await client.query("commit");
      row = r.rows[0]!;
    } catch (err) {
      await client.query("rollback").catch(() => {});
      throw err;
    } finally {
      client.release();
    }
    if (!passed) {
      return c.json(
        {
          error: { code: "SKILL_TEST_FAILED", message: row.message ?? "skill test failed" },
          verification: toView(row, now),
        },
        400,
      );
    }
    await recomputeSoon(deps, [body.agentId], "verification");
    await verificationCompleted(deps, toView(row, now));
    return c.json({ verification: toView(row, now) }, 201);
  })
  .openapi(attemptRoute, async (c) => {
    const deps = c.get("deps");
    const { skillName } = c.req.valid("param");
    const { agentId: forAgent } = c.req.valid("json");
    if (!(SKILL_NAMES as readonly string[]).includes(skillName)) {
      throw new ApiError(400, "UNKNOWN_SKILL", `skillName must be one of ${SKILL_NAMES.join(", ")}`);
    }
    if (!(await agentFacts(deps, forAgent))) throw errors.agentNotFound(forAgent);
    const drawn = drawQuestions(skillName as SkillName);
    const attemptId = `att_${randomBytes(16).toString("hex")}`;
    const { rows } = await deps.pool.query<{ expires_at: Date }>(
      `insert into api.skill_attempt (id, agent_id, skill_name, questions, expires_at)
       values ($1, $2, $3, $4::jsonb, now() + make_interval(secs => $5)) returning expires_at`,
      [attemptId, forAgent, skillName, JSON.stringify(drawn), ATTEMPT_TTL_SECONDS],
    );
    return c.json(
      {
        attemptId,
        skillName,
        passScore: SKILL_PASS_SCORE,
        expiresAt: rows[0]!.expires_at.toISOString(),
        questions: drawn.map(({ question, options }) => ({ question, options })),
      },
      201,
    );
  })
  .openapi(listRoute, async (c) => {
    const deps = c.get("deps");
    const { agentId: aid } = c.req.valid("param");
    if (!(await agentFacts(deps, aid))) throw errors.agentNotFound(aid);
    const [now, { rows }] = await Promise.all([
      chainClock(deps).now(),
      deps.pool.query<VerificationRow>(
        `select ${COLUMNS} from api.verification v where v.agent_id = $1 order by v.id desc limit 500`,
        [aid],
      ),
    ]);
    return c.json({ agentId: aid, verifications: rows.map((r) => toView(r, now)) }, 200);
  })
  .openapi(getRoute, async (c) => {
    const deps = c.get("deps");
    const { id: vid } = c.req.valid("param");
    const row = await findVerification(deps.pool, vid);
    if (!row) throw notFound(vid);
    return c.json({ verification: toView(row, await chainClock(deps).now()) }, 200);
  });
