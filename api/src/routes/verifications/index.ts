// Verifications (badges): domain control by DNS TXT record, USDC locked in the StakeVault read on chain, and server-graded skill
// tests. The spec gives these endpoints no credentials; a badge only ever reflects a fact anyone can check. The rules
// are in use-cases/verifications/.
import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { errorResponses, errorSchema, json, jsonBody } from "../../lib/schemas.ts";
import { checkDomain } from "../../use-cases/verifications/check-domain.ts";
import { checkStake } from "../../use-cases/verifications/check-stake.ts";
import { drawSkillTest } from "../../use-cases/verifications/draw-skill-test.ts";
import { getVerification } from "../../use-cases/verifications/get-verification.ts";
import { listVerifications } from "../../use-cases/verifications/list-verifications.ts";
import { requestDomain } from "../../use-cases/verifications/request-domain.ts";
import { requestStake } from "../../use-cases/verifications/request-stake.ts";
import { submitSkillTest } from "../../use-cases/verifications/submit-skill-test.ts";
import {
  agentIdParam,
  agentVerifications,
  attemptBody,
  domainBody,
  drawnTest,
  idParam,
  skillBody,
  skillNameParam,
  stakeBody,
  verificationOut,
  verificationSchema,
} from "./schemas.ts";

const domainRoute = createRoute({
  method: "post",
  path: "/domain",
  tags: ["verifications"],
  summary: "Request a domain verification (publish the dnsRecord as TXT at _hub.<domain>)",
  request: { body: jsonBody(domainBody) },
  responses: {
    201: json(verificationOut.extend({ instructions: z.string() }), "PENDING verification"),
    ...errorResponses(400, 404),
  },
});

/** The renewal rule both checks share (use-cases/verifications; docs/decisions.md). */
const RENEWAL =
  "A PENDING request becomes VERIFIED. A VERIFIED one is renewed (new verifiedAt and expiresAt, one " +
  "verification.completed event) when its last verification is at least a day old in chain time; a check sooner " +
  "answers the record unchanged.";

const verifyRoute = createRoute({
  method: "post",
  path: "/{id}/verify",
  tags: ["verifications"],
  summary: "Check the TXT record of a domain verification (also renews a VERIFIED one)",
  description: RENEWAL,
  request: { params: idParam },
  responses: { 200: json(verificationOut, "VERIFIED verification"), ...errorResponses(400, 404, 503) },
});

const stakeRoute = createRoute({
  method: "post",
  path: "/stake",
  tags: ["verifications"],
  summary: "Request a stake verification: USDC the agent keeps locked in the StakeVault",
  request: { body: jsonBody(stakeBody) },
  responses: { 201: json(verificationOut, "PENDING verification"), ...errorResponses(400, 404) },
});

const verifyStakeRoute = createRoute({
  method: "post",
  path: "/{id}/verify-stake",
  tags: ["verifications"],
  summary:
    "Read the agent's active stake in the StakeVault on chain (deposits minus pending withdrawals); the badge lapses when it falls below the minimum",
  description: RENEWAL,
  request: { params: idParam },
  responses: { 200: json(verificationOut, "VERIFIED verification"), ...errorResponses(400, 404) },
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
  request: { params: skillNameParam, body: jsonBody(attemptBody) },
  responses: { 201: json(drawnTest, "Questions (without answers)"), ...errorResponses(400, 404) },
});

const listRoute = createRoute({
  method: "get",
  path: "/agent/{agentId}",
  tags: ["verifications"],
  request: { params: agentIdParam },
  responses: { 200: json(agentVerifications, "Verifications"), ...errorResponses(404) },
});

const getRoute = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["verifications"],
  request: { params: idParam },
  responses: { 200: json(verificationOut, "Verification"), ...errorResponses(404) },
});

export const verificationRoutes = router()
  .openapi(domainRoute, async (c) => c.json(await requestDomain(c.get("deps"), c.req.valid("json")), 201))
  .openapi(verifyRoute, async (c) => c.json(await checkDomain(c.get("deps"), c.req.valid("param")), 200))
  .openapi(stakeRoute, async (c) => c.json(await requestStake(c.get("deps"), c.req.valid("json")), 201))
  .openapi(verifyStakeRoute, async (c) => c.json(await checkStake(c.get("deps"), c.req.valid("param")), 200))
  .openapi(skillRoute, async (c) => {
    const body = c.req.valid("json");
    const { verification, passed } = await submitSkillTest(c.get("deps"), {
      agentId: body.agentId,
      skillName: body.skillName,
      attemptId: body.attemptId,
      answers: body.testResults.questions,
    }).catch((error) => {
      if (error?.retryAfterSeconds !== undefined) c.header("Retry-After", error.retryAfterSeconds.toString());
      throw error;
    });
    if (!passed) {
      const message = verification.message ?? "skill test failed";
      return c.json({ error: { code: "SKILL_TEST_FAILED" as const, message }, verification }, 400);
    }
    return c.json({ verification }, 201);
  })
  .openapi(attemptRoute, async (c) => {
    const { skillName } = c.req.valid("param");
    const { agentId } = c.req.valid("json");
    return c.json(await drawSkillTest(c.get("deps"), { skillName, agentId }), 201);
  })
  .openapi(listRoute, async (c) => c.json(await listVerifications(c.get("deps"), c.req.valid("param")), 200))
  .openapi(getRoute, async (c) => c.json(await getVerification(c.get("deps"), c.req.valid("param")), 200));
