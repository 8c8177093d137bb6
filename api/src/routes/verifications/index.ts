// Verifications (badges): domain control by DNS TXT record, USDC locked in the StakeVault read on chain, and server-graded skill
// tests. The spec gives these endpoints no credentials; a badge only ever reflects a fact anyone can check.
import { randomBytes } from "node:crypto";
import { StakeVaultAbi } from "@agenthub/common/generated/abis";
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../../context.ts";
import { DOMAIN_BADGE, SKILL_NAMES, type SkillName, stakeBadge } from "../../domain/reputation.ts";
import { ATTEMPT_TTL_SECONDS, drawQuestions } from "../../domain/skill-attempts.ts";
import { SKILL_PASS_SCORE } from "../../domain/skills.ts";
import { ApiError, errors } from "../../errors.ts";
import { chainClock } from "../../lib/chain-time.ts";
import { lookupTxt } from "../../lib/net/dns-txt.ts";
import { router } from "../../lib/openapi.ts";
import { baseUnits, errorResponses, errorSchema, json, jsonBody } from "../../lib/schemas.ts";
import { addMonths } from "../../lib/time.ts";
import { recomputeSoon } from "../../stores/reputation-recompute.ts";
import {
  agentFacts,
  domainVerifiedElsewhere,
  findVerification,
  insertRequest,
  insertSkillAttempt,
  markChecked,
  markVerified,
  type VerificationRow,
  verificationsOf,
} from "../../stores/verifications.ts";
import { emitOrgEvent } from "../../stores/webhook-outbox.ts";
import { submitSkillTest } from "../../use-cases/verifications/submit-skill-test.ts";
import { dnsRecordFor, effectiveStatus, toView, verificationSchema } from "./views.ts";

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
  path: "/domain",
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
  path: "/{id}/verify",
  tags: ["verifications"],
  summary: "Check the TXT record of a domain verification (also renews a VERIFIED one)",
  request: { params: idParam },
  responses: { 200: json(verificationOut, "VERIFIED verification"), ...errorResponses(400, 404, 503) },
});

const stakeRoute = createRoute({
  method: "post",
  path: "/stake",
  tags: ["verifications"],
  summary: "Request a stake verification: USDC the agent keeps locked in the StakeVault",
  request: { body: jsonBody(z.object({ agentId, minStakeAmount: baseUnits })) },
  responses: { 201: json(verificationOut, "PENDING verification"), ...errorResponses(400, 404) },
});

const verifyStakeRoute = createRoute({
  method: "post",
  path: "/{id}/verify-stake",
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
  path: "/skill",
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
  path: "/skill/{skillName}/attempts",
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
  path: "/agent/{agentId}",
  tags: ["verifications"],
  request: { params: agentIdParam },
  responses: {
    200: json(z.object({ agentId: z.number(), verifications: z.array(verificationSchema) }), "Verifications"),
    ...errorResponses(404),
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["verifications"],
  request: { params: idParam },
  responses: { 200: json(verificationOut, "Verification"), ...errorResponses(404) },
});

/** "verification.completed" for an organization agent's new or renewed badge (once per grant: id + validity). */
const verificationCompleted = (deps: Deps, v: z.infer<typeof verificationSchema>) =>
  emitOrgEvent(
    deps,
    "verification.completed",
    v.agentId,
    {
      verificationId: v.id,
      agentId: v.agentId,
      type: v.type,
      status: v.status,
      badge: v.badge ?? null,
      ...(v.domain ? { domain: v.domain } : {}),
      ...(v.skillName ? { skillName: v.skillName, score: v.score ?? null } : {}),
    },
    `verification.completed:${v.id}:${v.expiresAt ?? ""}`,
  );

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
    if (await domainVerifiedElsewhere(deps.pool, body.domain, now)) {
      throw new ApiError(400, "DOMAIN_ALREADY_VERIFIED", `${body.domain} is already verified`);
    }
    const token = randomBytes(16).toString("hex");
    const row = await insertRequest(deps.pool, {
      agentId: body.agentId,
      type: "domain",
      domain: body.domain,
      token,
      now,
      expiresAt: now + CHALLENGE_SECONDS,
    });
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
    if (await domainVerifiedElsewhere(deps.pool, domain, now, vid)) {
      throw new ApiError(400, "DOMAIN_ALREADY_VERIFIED", `${domain} is already verified`);
    }
    const expected = dnsRecordFor(row.token!);
    const values = await lookupTxt(deps, `_hub.${domain}`);
    await markChecked(deps.pool, vid, now);
    if (!values.some((v) => v.trim() === expected)) {
      throw new ApiError(
        400,
        "DNS_RECORD_NOT_FOUND",
        `no TXT record "${expected}" at _hub.${domain} (found ${values.length} TXT value(s)); DNS changes may take up to 48 hours`,
      );
    }
    const updated = await markVerified(deps.pool, vid, {
      badge: DOMAIN_BADGE,
      now,
      expiresAt: addMonths(now, VALIDITY_MONTHS.domain),
    });
    if (updated === "DOMAIN_TAKEN") throw new ApiError(400, "DOMAIN_ALREADY_VERIFIED", `${domain} is already verified`);
    if (!updated) throw new ApiError(400, "VERIFICATION_EXPIRED", `verification ${vid} has expired`);
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
    const row = await insertRequest(deps.pool, {
      agentId: body.agentId,
      type: "stake",
      minStake: body.minStakeAmount,
      now,
      expiresAt: now + CHALLENGE_SECONDS,
    });
    return c.json({ verification: toView(row, now) }, 201);
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
    await markChecked(deps.pool, vid, now);
    if (balance < min) {
      throw new ApiError(
        400,
        "INSUFFICIENT_BALANCE",
        `agent ${row.agent_id} has ${balance} USDC base units staked in the StakeVault (not pending withdrawal), below the requested ${min}`,
      );
    }
    const updated = await markVerified(deps.pool, vid, {
      badge: stakeBadge(min)!,
      now,
      expiresAt: addMonths(now, VALIDITY_MONTHS.stake),
      actualBalance: balance,
    });
    if (!updated || updated === "DOMAIN_TAKEN") {
      throw new ApiError(400, "VERIFICATION_EXPIRED", `verification ${vid} has expired`);
    }
    await recomputeSoon(deps, [Number(row.agent_id)], "verification");
    await verificationCompleted(deps, toView(updated, now));
    return c.json({ verification: toView(updated, now) }, 200);
  })
  .openapi(skillRoute, async (c) => {
    const deps = c.get("deps");
    const body = c.req.valid("json");
    const { row, passed, now } = await submitSkillTest(deps, {
      agentId: body.agentId,
      skillName: body.skillName,
      attemptId: body.attemptId,
      answers: body.testResults.questions,
    }).catch((error) => {
      if (error?.retryAfterSeconds !== undefined) c.header("Retry-After", error.retryAfterSeconds.toString());
      throw error;
    });
    if (!passed) {
      return c.json(
        {
          error: { code: "SKILL_TEST_FAILED" as const, message: row.message ?? "skill test failed" },
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
    const expiresAt = await insertSkillAttempt(deps.pool, {
      id: attemptId,
      agentId: forAgent,
      skill: skillName,
      questions: drawn,
      ttlSeconds: ATTEMPT_TTL_SECONDS,
    });
    return c.json(
      {
        attemptId,
        skillName,
        passScore: SKILL_PASS_SCORE,
        expiresAt: expiresAt.toISOString(),
        questions: drawn.map(({ question, options }) => ({ question, options })),
      },
      201,
    );
  })
  .openapi(listRoute, async (c) => {
    const deps = c.get("deps");
    const { agentId: aid } = c.req.valid("param");
    if (!(await agentFacts(deps, aid))) throw errors.agentNotFound(aid);
    const [now, rows] = await Promise.all([chainClock(deps).now(), verificationsOf(deps.pool, aid)]);
    return c.json({ agentId: aid, verifications: rows.map((r) => toView(r, now)) }, 200);
  })
  .openapi(getRoute, async (c) => {
    const deps = c.get("deps");
    const { id: vid } = c.req.valid("param");
    const row = await findVerification(deps.pool, vid);
    if (!row) throw notFound(vid);
    return c.json({ verification: toView(row, await chainClock(deps).now()) }, 200);
  });
