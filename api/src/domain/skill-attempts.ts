// Skill tests are drawn fresh for every attempt: six questions computed from random parameters (the answer is
// known only once the question exists) and four from the conceptual bank, every option list shuffled. The answer
// key of one attempt is worth nothing for the next, and a key copied from the source cannot pass (at most 4 of 10).
import { randomInt } from "node:crypto";
import type { SkillName } from "./reputation.ts";
import { QUESTION_BANK, type SkillQuestion } from "./skills.ts";

export const ATTEMPT_QUESTIONS = 10;
const COMPUTED = 6;
/** How long a drawn attempt can be answered. */
export const ATTEMPT_TTL_SECONDS = 30 * 60;

type Rng = (min: number, maxExclusive: number) => number;
type Template = (r: Rng) => { question: string; answer: number };

const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
const list = (r: Rng, n: number, max: number) => Array.from({ length: n }, () => r(1, max));

const TEMPLATES: Record<SkillName, Template[]> = {
  "solidity-security": [
    (r) => {
      const reward = r(1, 10_000) * 1_000_000;
      const bps = r(1, 1_000);
      return {
        question: `A run escrows a reward of ${reward} USDC base units with a fee of ${bps} basis points (reward * bps / 10000, rounded down). What is the fee in base units?`,
        answer: Math.floor((reward * bps) / 10_000),
      };
    },
    (r) => {
      const a = r(100, 256);
      const b = r(100, 256);
      return {
        question: `In Solidity 0.8, what is x after: uint8 x = ${a}; unchecked { x += ${b}; }`,
        answer: (a + b) % 256,
      };
    },
    (r) => {
      const whole = r(1, 100_000);
      const cents = r(0, 100);
      return {
        question: `How many base units are ${whole}.${String(cents).padStart(2, "0")} USDC (6 decimals)?`,
        answer: whole * 1_000_000 + cents * 10_000,
      };
    },
    (r) => {
      const days = r(2, 60);
      return { question: `How many seconds is the Solidity expression ${days} days?`, answer: days * 86_400 };
    },
    (r) => {
      const k = r(3, 40);
      return { question: `What is the value of (1 << ${k}) in Solidity (uint256)?`, answer: 2 ** k };
    },
    (r) => {
      const a = r(1, 65_535);
      return { question: `What is type(uint16).max - ${a} in Solidity?`, answer: 65_535 - a };
    },
  ],
  "typescript-testing": [
    (r) => {
      const xs = list(r, 7, 50);
      const k = r(5, 45);
      return {
        question: `What does [${xs.join(", ")}].filter((x) => x > ${k}).length evaluate to?`,
        answer: xs.filter((x) => x > k).length,
      };
    },
    (r) => {
      const xs = list(r, 6, 1_000);
      return { question: `What does Math.max(...[${xs.join(", ")}]) evaluate to?`, answer: Math.max(...xs) };
    },
    (r) => {
      const n = r(2, 30);
      return { question: `What does "abc".repeat(${n}).length evaluate to?`, answer: 3 * n };
    },
    (r) => {
      const xs = list(r, 6, 100);
      const k = r(1, 100);
      return {
        question: `What does [${xs.join(", ")}].reduce((s, x) => s + x, ${k}) evaluate to?`,
        answer: sum(xs) + k,
      };
    },
    (r) => {
      const a = r(0, 5);
      const b = r(6, 12);
      return {
        question: `What does Array.from({ length: 12 }, (_, i) => i).slice(${a}, ${b}).length evaluate to?`,
        answer: b - a,
      };
    },
    (r) => {
      const v = r(16, 4_096);
      return { question: `What does parseInt("${v.toString(16)}", 16) evaluate to?`, answer: v };
    },
  ],
  "rust-coding": [
    (r) => {
      const n = r(1, 255);
      return { question: `What is u8::MAX.wrapping_add(${n}) in Rust?`, answer: (255 + n) % 256 };
    },
    (r) => {
      const a = r(0, 50);
      const b = r(51, 200);
      return { question: `What is (${a}..${b}).count() in Rust?`, answer: b - a };
    },
    (r) => {
      const a = r(100, 10_000);
      const b = r(3, 97);
      return { question: `What is ${a} % ${b} in Rust (u32)?`, answer: a % b };
    },
    (r) => {
      const a = r(1, 1_000);
      const b = r(1, 1_000);
      return { question: `What is ${a}u32.saturating_sub(${b}) in Rust?`, answer: Math.max(0, a - b) };
    },
    (r) => {
      const k = r(2, 30);
      return { question: `What is 2i64.pow(${k}) in Rust?`, answer: 2 ** k };
    },
    (r) => {
      const n = r(1, 64);
      const k = r(1, 10);
      return { question: `What is vec![0u8; ${n}].len() + ${k} in Rust?`, answer: n + k };
    },
  ],
  "python-data": [
    (r) => {
      const a = r(0, 20);
      const b = r(40, 200);
      const s = r(2, 9);
      return { question: `What is len(range(${a}, ${b}, ${s})) in Python?`, answer: Math.ceil((b - a) / s) };
    },
    (r) => {
      const n = r(5, 200);
      return { question: `What is sum(range(${n})) in Python?`, answer: (n * (n - 1)) / 2 };
    },
    (r) => {
      const a = r(100, 10_000);
      const b = r(3, 97);
      return { question: `What is ${a} // ${b} in Python?`, answer: Math.floor(a / b) };
    },
    (r) => {
      const n = r(2, 50);
      return { question: `What is len("xy" * ${n}) in Python?`, answer: 2 * n };
    },
    (r) => {
      const n = r(10, 200);
      const k = r(2, 9);
      return {
        question: `What is len([i for i in range(${n}) if i % ${k} == 0]) in Python?`,
        answer: Math.ceil(n / k),
      };
    },
    (r) => {
      const xs = list(r, 6, 100);
      return {
        question: `What is max([${xs.join(", ")}]) - min([${xs.join(", ")}]) in Python?`,
        answer: Math.max(...xs) - Math.min(...xs),
      };
    },
  ],
};

export interface DrawnQuestion {
  question: string;
  options: string[];
  answer: string;
}

function shuffle<T>(xs: T[], r: Rng): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r(0, i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Three wrong numbers near the right one (off by one, by a small step, doubled): plausible distractors. */
function numericOptions(answer: number, r: Rng): string[] {
  const options = new Set([answer]);
  const candidates = shuffle(
    [answer + 1, answer - 1, answer * 2 + 1, answer + r(2, 12), answer - r(2, 12), answer + 10],
    r,
  );
  for (const c of candidates) {
    if (options.size === 4) break;
    options.add(c);
  }
  return shuffle([...options].map(String), r);
}

/** A fresh question set for one attempt: COMPUTED parameterised questions and the rest from the bank, in random order. */
export function drawQuestions(skill: SkillName, r: Rng = randomInt): DrawnQuestion[] {
  const computed = shuffle(TEMPLATES[skill], r)
    .slice(0, COMPUTED)
    .map((template) => {
      const { question, answer } = template(r);
      return { question, options: numericOptions(answer, r), answer: String(answer) };
    });
  const banked = shuffle(QUESTION_BANK[skill], r)
    .slice(0, ATTEMPT_QUESTIONS - COMPUTED)
    .map((q: SkillQuestion) => ({ question: q.question, options: shuffle(q.options, r), answer: q.answer }));
  return shuffle([...computed, ...banked], r);
}

const norm = (s: string) => s.trim().replace(/\s+/g, " ").toLowerCase();

/**
 * Grades answers against the attempt's own questions: each counts once (the first answer to it), questions not in
 * the attempt are ignored, unanswered ones are wrong. Score = round(100 x correct / questions).
 */
export function gradeAttempt(
  drawn: DrawnQuestion[],
  answers: { question: string; answer: string }[],
): { score: number; correct: number; total: number; graded: { question: string; correct: boolean }[] } {
  const byQuestion = new Map(drawn.map((q) => [norm(q.question), q]));
  const answered = new Set<string>();
  const graded: { question: string; correct: boolean }[] = [];
  let correct = 0;
  for (const a of answers) {
    const key = norm(a.question);
    const q = byQuestion.get(key);
    if (!q || answered.has(key)) continue;
    answered.add(key);
    const ok = norm(a.answer) === norm(q.answer);
    if (ok) correct++;
    graded.push({ question: q.question, correct: ok });
  }
  return { score: Math.round((100 * correct) / drawn.length), correct, total: drawn.length, graded };
}
