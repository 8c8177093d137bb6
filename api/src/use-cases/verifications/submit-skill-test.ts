// A skill test answered (one attempt drawn by POST /api/verifications/skill/{skillName}/attempts): graded against
// the questions drawn for that attempt, at most once per 24 hours per (agent, skill); passing earns the badge.
import type { Deps } from "../../context.ts";
import { withTransaction } from "../../db/transaction.ts";
import { skillBadge } from "../../domain/reputation.ts";
import { type DrawnQuestion, gradeAttempt } from "../../domain/skill-attempts.ts";
import { SKILL_PASS_SCORE, SKILL_RETAKE_SECONDS } from "../../domain/skills.ts";
import { apiError } from "../../errors.ts";
import { addMonths, isoFromSeconds, secondsOf } from "../../lib/time.ts";
import {
  bestVerifiedSkillScore,
  insertSkillResult,
  lastSkillTest,
  lockSkill,
  spendSkillAttempt,
} from "../../stores/verifications.ts";
import { requireAgentFacts } from "../guards.ts";
import { badgeGranted } from "./badges.ts";
import { knownSkill } from "./draw-skill-test.ts";
import { toView, type VerificationView } from "./verification-view.ts";

export const SKILL_VALIDITY_MONTHS = 24;

export interface SubmitSkillTestParameters {
  agentId: number;
  skillName: string;
  attemptId: string;
  answers: Parameters<typeof gradeAttempt>[1];
}

export interface SubmitSkillTestReturnType {
  /** A failed test is recorded too (status FAILED, its message says the score and when to retake). */
  verification: VerificationView;
  passed: boolean;
}

/** 429 SKILL_RETAKE_TOO_SOON carries `retryAfterSeconds` on the error for the Retry-After header. */
export async function submitSkillTest(deps: Deps, p: SubmitSkillTestParameters): Promise<SubmitSkillTestReturnType> {
  const skill = knownSkill(p.skillName);
  await requireAgentFacts(deps, p.agentId);
  const now = await deps.clock.now();
  let passed = false;
  const row = await withTransaction(deps.pool, async (tx) => {
    // One attempt at a time per (agent, skill), so two parallel submissions cannot both pass the 24-hour rule.
    await lockSkill(tx, p.agentId, skill);
    // The answers are graded against the questions drawn for this attempt, which is then spent.
    const questions = await spendSkillAttempt<DrawnQuestion[]>(tx, p.attemptId, p.agentId, skill);
    if (!questions) {
      throw apiError(
        "INVALID_SKILL_ATTEMPT",
        `attempt ${p.attemptId} is unknown, for another agent or skill, already answered or past its 30 minutes; draw one with POST /api/verifications/skill/${skill}/attempts`,
      );
    }
    const last = await lastSkillTest(tx, p.agentId, skill);
    if (last) {
      const lastAt = secondsOf(last);
      const wait = lastAt + SKILL_RETAKE_SECONDS - now;
      if (wait > 0n) {
        const error = apiError(
          "SKILL_RETAKE_TOO_SOON",
          `the ${skill} test can be retaken after ${isoFromSeconds(lastAt + SKILL_RETAKE_SECONDS)} (24 hours after the last attempt)`,
        );
        throw Object.assign(error, { retryAfterSeconds: wait });
      }
    }
    const grade = gradeAttempt(questions, p.answers);
    passed = grade.score >= SKILL_PASS_SCORE;
    const best = await bestVerifiedSkillScore(tx, p.agentId, skill, now);
    const message = passed
      ? null
      : `scored ${grade.score} (${grade.correct}/${grade.total} correct); ${SKILL_PASS_SCORE} is needed to pass. ` +
        `Retake after ${isoFromSeconds(now + SKILL_RETAKE_SECONDS)}` +
        (best ? `; your verified best of ${best} still counts.` : ".");
    return insertSkillResult(tx, {
      agentId: p.agentId,
      skill,
      passed,
      score: grade.score,
      answers: grade.graded,
      badge: passed ? skillBadge(skill) : null,
      message,
      now,
      expiresAt: passed ? addMonths(now, SKILL_VALIDITY_MONTHS) : null,
    });
  });
  const verification = toView(row, now);
  if (passed) await badgeGranted(deps, verification);
  return { verification, passed };
}
