// The conceptual question bank for skill verifications; each attempt draws four of these beside six computed
// questions (skill-attempts.ts). The score, passed and correct fields a client sends are never trusted. The bank is
// content (skill-questions.json), checked once at load: every skill has questions, every answer is one of its options.

import { SKILL_NAMES, type SkillName } from "./reputation.ts";
import bank from "./skill-questions.json" with { type: "json" };

export const SKILL_PASS_SCORE = 80;
export const SKILL_RETAKE_SECONDS = 24n * 3600n;

export interface SkillQuestion {
  question: string;
  options: string[];
  answer: string;
}

function checkedBank(raw: Record<string, SkillQuestion[]>): Record<SkillName, SkillQuestion[]> {
  for (const skill of SKILL_NAMES) {
    if (!raw[skill]?.length) throw new Error(`skill-questions.json has no questions for ${skill}`);
    for (const q of raw[skill]) {
      if (!q.options.includes(q.answer)) throw new Error(`answer not among options: ${q.question}`);
    }
  }
  return raw as Record<SkillName, SkillQuestion[]>;
}

export const QUESTION_BANK: Record<SkillName, SkillQuestion[]> = checkedBank(bank);
