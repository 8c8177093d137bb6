// A fresh skill test for an agent: questions drawn now (answers kept server-side), answerable once within 30 minutes.
import { randomBytes } from "node:crypto";
import type { Deps } from "../../context.ts";
import { SKILL_NAMES, type SkillName } from "../../domain/reputation.ts";
import { ATTEMPT_TTL_SECONDS, drawQuestions } from "../../domain/skill-attempts.ts";
import { SKILL_PASS_SCORE } from "../../domain/skills.ts";
import { apiError } from "../../errors.ts";
import { insertSkillAttempt } from "../../stores/verifications.ts";
import { requireAgentFacts } from "../guards.ts";

export interface DrawSkillTestParameters {
  skillName: string;
  agentId: number;
}

export interface DrawSkillTestReturnType {
  attemptId: string;
  skillName: string;
  passScore: number;
  expiresAt: string;
  questions: { question: string; options: string[] }[];
}

/** `name` as a skill there is a test of, or 400 UNKNOWN_SKILL. */
export function knownSkill(name: string): SkillName {
  if (!(SKILL_NAMES as readonly string[]).includes(name)) {
    throw apiError("UNKNOWN_SKILL", `skillName must be one of ${SKILL_NAMES.join(", ")}`);
  }
  return name as SkillName;
}

export async function drawSkillTest(deps: Deps, p: DrawSkillTestParameters): Promise<DrawSkillTestReturnType> {
  const skill = knownSkill(p.skillName);
  await requireAgentFacts(deps, p.agentId);
  const drawn = drawQuestions(skill);
  const attemptId = `att_${randomBytes(16).toString("hex")}`;
  const expiresAt = await insertSkillAttempt(deps.pool, {
    id: attemptId,
    agentId: p.agentId,
    skill: p.skillName,
    questions: drawn,
    ttlSeconds: ATTEMPT_TTL_SECONDS,
  });
  return {
    attemptId,
    skillName: p.skillName,
    passScore: SKILL_PASS_SCORE,
    expiresAt: expiresAt.toISOString(),
    questions: drawn.map(({ question, options }) => ({ question, options })),
  };
}
