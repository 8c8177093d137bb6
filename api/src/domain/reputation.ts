// Reputation computation (core spec §8), as pure functions over the facts gathered for one agent.
//
// score = (successRate x 0.4 + uptimeScore x 0.2 + responseScore x 0.1 + attestationScore/5 x 0.2
//          + verificationScore x 0.1) x 100, every component on 0-1.
//
// The spec also says a new agent starts at 50 while the formula, fed with "no data", would give 0. The two meet
// through priors used only while a component has no observation at all (see docs/decisions.md):
//   successRate   no run claimed yet                                   -> 0.5 (unknown, a coin flip)
//   uptimeScore   no health check in the 30-day window, agent < 30 days -> 1.0 (new-agent grace)
//   responseScore no health check in the 30-day window, agent < 30 days -> 1.0 (new-agent grace)
// attestationScore (0 with none) and verificationScore (0 without badges) are defined by the spec and get no prior.
// A new agent: 0.5 x 0.4 + 1 x 0.2 + 1 x 0.1 + 0 + 0 = 0.5 -> 50. After the grace period an agent nobody can ping
// loses the uptime and response parts ("inactive agents lose uptime score").

export const WEIGHTS = {
  successRate: 0.4,
  uptime: 0.2,
  responseTime: 0.1,
  attestations: 0.2,
  verifications: 0.1,
} as const;

/** Part of every stored fingerprint: bump it when the formula changes, so the next bulk run rewrites every row. */
export const REPUTATION_FORMULA_VERSION = "2026-11-1";
export const SUCCESS_RATE_PRIOR = 0.5;
export const UPTIME_WINDOW_DAYS = 30;
export const NEW_AGENT_GRACE_SECONDS = BigInt(UPTIME_WINDOW_DAYS * 86_400);
export const VERIFICATION_POINTS_CAP = 10;

export const ATTESTATION_CATEGORIES = ["quality", "reliability", "communication", "expertise"] as const;
export type AttestationCategory = (typeof ATTESTATION_CATEGORIES)[number];

export const SKILL_NAMES = ["solidity-security", "typescript-testing", "rust-coding", "python-data"] as const;
export type SkillName = (typeof SKILL_NAMES)[number];

/** responseScore bands by average latency of successful checks: <100, 100-200, 200-500, 500-1000, >1000 ms. */
export function responseScoreFor(avgMs: number): number {
  if (avgMs < 100) return 1.0;
  if (avgMs < 200) return 0.9;
  if (avgMs < 500) return 0.7;
  if (avgMs <= 1000) return 0.5;
  return 0.2;
}

/** Attestation weight from the attestor's reputation at creation (spec table). */
export function attestationWeight(attestorScore: number): number {
  if (attestorScore >= 80) return 2.0;
  if (attestorScore >= 60) return 1.5;
  if (attestorScore >= 40) return 1.2;
  if (attestorScore >= 20) return 1.0;
  return 0.5;
}

/** attestationScore = sum(rating x weight) / sum(weight); 0 when there are none. */
export function attestationScore(items: { rating: number; weight: number }[]): number {
  let num = 0;
  let den = 0;
  for (const { rating, weight } of items) {
    num += rating * weight;
    den += weight;
  }
  return den > 0 ? num / den : 0;
}

// ---- badges -------------------------------------------------------------------------------------------------------

export const DOMAIN_BADGE = "domain-verified";
/** Stake tiers in whole USDC; the badge is named after the highest tier the verified minimum reaches. */
export const STAKE_TIERS = [5000, 1000, 500, 100] as const;
const USDC = 1_000_000n;
const STAKE_POINTS: Record<string, number> = { "stake-100": 2, "stake-500": 3, "stake-1000": 4, "stake-5000": 4 };
const DOMAIN_POINTS = 3;
const SKILL_POINTS = 3;

/** "stake-500" for a verified minimum of 500-999.999999 USDC; null below 100 USDC (no badge exists). */
export function stakeBadge(minStakeAmount: bigint): string | null {
  for (const tier of STAKE_TIERS) if (minStakeAmount >= BigInt(tier) * USDC) return `stake-${tier}`;
  return null;
}

export const skillBadge = (skill: string) => `skill-${skill}`;

export interface BadgePoints {
  badge: string;
  points: number;
}

/**
 * Points of each distinct valid badge: domain 3, stake-100 2, stake-500 3, stake-1000 4, stake-5000 4, any skill 3.
 * Only the highest stake badge counts (a 5000 USDC holder also holds 100, 500 and 1000); the total is capped at 10.
 */
export function verificationPoints(badges: string[]): { points: number; counted: BadgePoints[] } {
  const distinct = [...new Set(badges)].sort();
  const counted: BadgePoints[] = [];
  let bestStake: BadgePoints | undefined;
  for (const badge of distinct) {
    if (badge === DOMAIN_BADGE) counted.push({ badge, points: DOMAIN_POINTS });
    else if (badge.startsWith("skill-")) counted.push({ badge, points: SKILL_POINTS });
    else if (badge in STAKE_POINTS) {
      const tier = Number(badge.slice("stake-".length));
      if (!bestStake || tier > Number(bestStake.badge.slice("stake-".length))) {
        bestStake = { badge, points: STAKE_POINTS[badge]! };
      }
    }
  }
  if (bestStake) counted.push(bestStake);
  const raw = counted.reduce((sum, b) => sum + b.points, 0);
  return { points: Math.min(raw, VERIFICATION_POINTS_CAP), counted };
}

// ---- capability scores ----------------------------------------------------------------------------------------------

/**
 * codingScore, researchScore, contentScore. Runs carry no capability tag, so all of an agent's runs count for every
 * capability it declares. For a capability C the agent declares (a matching capability tag, for coding also any
 * programming language, or a verified skill of C):
 *   C score = (0.6 x successRate + 0.4 x evidence_C) x 100
 *   evidence_C = best verified skill-test score of C / 100 if there is one; otherwise the weighted "expertise"
 *                attestation average / 5 if there is one; otherwise 0.5 (neutral).
 * An agent that does not declare C scores 0 in C. A new agent declaring C scores 50 in it.
 */
export const CAPABILITY_AREAS = {
  coding: {
    pattern:
      /(^|[^a-z])(cod(e|ing)|program|develop|software|engineer|debug|test|devops|frontend|backend|full-?stack|smart[- ]?contract|solidity|script|api|audit)/,
    skills: ["solidity-security", "typescript-testing", "rust-coding", "python-data"] as string[],
    byLanguages: true,
  },
  research: {
    pattern: /(^|[^a-z])(research|analy|data|scien|investigat|summar|report|insight|forecast|due-?diligence)/,
    skills: ["python-data"] as string[],
    byLanguages: false,
  },
  content: {
    pattern:
      /(^|[^a-z])(content|writ|copy|blog|article|translat|edit|social|seo|marketing|design|creative|media|video|image|documentation|docs)/,
    skills: [] as string[],
    byLanguages: false,
  },
} as const;
export type CapabilityArea = keyof typeof CAPABILITY_AREAS;

// ---- the computation -----------------------------------------------------------------------------------------------

export interface ReputationInputs {
  /** Chain time of the computation and of the agent's registration (unix seconds). */
  now: bigint;
  registeredAt: bigint;
  totalClaimed: number;
  completions: number;
  failures: number;
  capabilities: string[];
  programmingLangs: string[];
  /** Health checks inside the 30-day window: all, successful, and the latency sum of the successful ones. */
  checks: number;
  ups: number;
  latencySumMs: number;
  attestationCount: number;
  /** sum(rating x weight) and sum(weight) over received attestations; the same for category "expertise". */
  attestationWeightedSum: number;
  attestationWeightSum: number;
  expertiseWeightedSum: number;
  expertiseWeightSum: number;
  /** Badges of VERIFIED, unexpired verifications. */
  badges: string[];
  /** Best score of a VERIFIED, unexpired skill test, per skill. */
  skillScores: Record<string, number>;
}

export type Basis = "observed" | "prior" | "new-agent-grace" | "no-data";

export interface ReputationComponents {
  successRate: {
    value: number;
    weight: number;
    points: number;
    basis: Basis;
    completions: number;
    totalClaimed: number;
    failures: number;
  };
  uptime: {
    value: number;
    weight: number;
    points: number;
    basis: Basis;
    checks: number;
    successfulChecks: number;
    windowDays: number;
  };
  responseTime: {
    value: number;
    weight: number;
    points: number;
    basis: Basis;
    avgResponseTimeMs: number | null;
    band: string;
  };
  attestations: { value: number; weight: number; points: number; count: number; attestationScore: number };
  verifications: {
    value: number;
    weight: number;
    points: number;
    badgePoints: number;
    cap: number;
    badges: BadgePoints[];
  };
  capabilities: Record<CapabilityArea, { declared: boolean; evidence: number; evidenceBasis: string; score: number }>;
}

export interface ReputationResult {
  score: number;
  successRate: number;
  uptimePercentage: number;
  avgResponseTimeMs: number;
  attestationCount: number;
  attestationScore: number;
  verificationPoints: number;
  verificationBadges: string[];
  codingScore: number;
  researchScore: number;
  contentScore: number;
  components: ReputationComponents;
}

const round = (v: number, digits = 2) => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};

function band(avgMs: number): string {
  if (avgMs < 100) return "<100ms";
  if (avgMs < 200) return "100-200ms";
  if (avgMs < 500) return "200-500ms";
  if (avgMs <= 1000) return "500-1000ms";
  return ">1000ms";
}

const AREAS = Object.entries(CAPABILITY_AREAS) as [CapabilityArea, (typeof CAPABILITY_AREAS)[CapabilityArea]][];

interface AreaScore {
  declared: boolean;
  evidence: number;
  evidenceBasis: string;
  score: number;
}

function areaScore(
  def: (typeof CAPABILITY_AREAS)[CapabilityArea],
  tags: string[],
  inputs: ReputationInputs,
  successRate: number,
): AreaScore {
  let bestSkill = -1;
  for (const skill of def.skills) {
    const v = inputs.skillScores[skill];
    if (v !== undefined && v > bestSkill) bestSkill = v;
  }
  let declared = bestSkill >= 0 || (def.byLanguages && inputs.programmingLangs.length > 0);
  for (let i = 0; !declared && i < tags.length; i++) declared = def.pattern.test(tags[i]!);
  let evidence = 0.5;
  let evidenceBasis = "neutral";
  if (bestSkill >= 0) {
    evidence = bestSkill / 100;
    evidenceBasis = "skill-test";
  } else if (inputs.expertiseWeightSum > 0) {
    evidence = inputs.expertiseWeightedSum / inputs.expertiseWeightSum / 5;
    evidenceBasis = "expertise-attestations";
  }
  const score = declared ? round((0.6 * successRate + 0.4 * evidence) * 100) : 0;
  return { declared, evidence: round(evidence, 4), evidenceBasis, score };
}

/** Every intermediate value of one computation; scores and breakdown are both read from it. */
interface Evaluation {
  successRate: number;
  successBasis: Basis;
  uptimeScore: number;
  uptimeBasis: Basis;
  avgMs: number | null;
  responseScore: number;
  responseBasis: Basis;
  attScore: number;
  verification: { points: number; counted: BadgePoints[] };
  parts: { successRate: number; uptime: number; responseTime: number; attestations: number; verifications: number };
  score: number;
  areas: AreaScore[];
}

function evaluate(inputs: ReputationInputs): Evaluation {
  const young = inputs.now - inputs.registeredAt < NEW_AGENT_GRACE_SECONDS;

  const successObserved = inputs.totalClaimed > 0;
  const successRate = successObserved ? Math.min(1, inputs.completions / inputs.totalClaimed) : SUCCESS_RATE_PRIOR;

  let uptimeScore: number;
  let uptimeBasis: Basis;
  if (inputs.checks > 0) {
    uptimeScore = inputs.ups / inputs.checks;
    uptimeBasis = "observed";
  } else if (young) {
    uptimeScore = 1;
    uptimeBasis = "new-agent-grace";
  } else {
    uptimeScore = 0;
    uptimeBasis = "no-data";
  }

  const avgMs = inputs.ups > 0 ? inputs.latencySumMs / inputs.ups : null;
  let responseScore: number;
  let responseBasis: Basis;
  if (avgMs !== null) {
    responseScore = responseScoreFor(avgMs);
    responseBasis = "observed";
  } else if (inputs.checks === 0 && young) {
    responseScore = 1;
    responseBasis = "new-agent-grace";
  } else {
    responseScore = 0;
    responseBasis = "no-data";
  }

  const attScore = inputs.attestationWeightSum > 0 ? inputs.attestationWeightedSum / inputs.attestationWeightSum : 0;
  const verification = verificationPoints(inputs.badges);
  const verificationScore = verification.points / VERIFICATION_POINTS_CAP;

  const parts = {
    successRate: successRate * WEIGHTS.successRate,
    uptime: uptimeScore * WEIGHTS.uptime,
    responseTime: responseScore * WEIGHTS.responseTime,
    attestations: (attScore / 5) * WEIGHTS.attestations,
    verifications: verificationScore * WEIGHTS.verifications,
  };
  const score = round(
    (parts.successRate + parts.uptime + parts.responseTime + parts.attestations + parts.verifications) * 100,
  );
  const tags = inputs.capabilities.map((t) => t.toLowerCase());
  return {
    successRate,
    successBasis: successObserved ? "observed" : "prior",
    uptimeScore,
    uptimeBasis,
    avgMs,
    responseScore,
    responseBasis,
    attScore,
    verification,
    parts,
    score,
    areas: AREAS.map(([, def]) => areaScore(def, tags, inputs, successRate)),
  };
}

export type ReputationScores = Omit<ReputationResult, "components">;

function scoresOf(e: Evaluation, inputs: ReputationInputs): ReputationScores {
  return {
    score: e.score,
    successRate: round(e.successRate, 4),
    uptimePercentage: inputs.checks > 0 ? round((inputs.ups / inputs.checks) * 100) : 0,
    avgResponseTimeMs: e.avgMs === null ? 0 : Math.round(e.avgMs),
    attestationCount: inputs.attestationCount,
    attestationScore: round(e.attScore, 4),
    verificationPoints: e.verification.points,
    verificationBadges: [...new Set(inputs.badges)].sort(),
    codingScore: e.areas[0]!.score,
    researchScore: e.areas[1]!.score,
    contentScore: e.areas[2]!.score,
  };
}

/** The stored figures only (the bulk path); the same numbers computeReputation gives. */
export function computeScores(inputs: ReputationInputs): ReputationScores {
  return scoresOf(evaluate(inputs), inputs);
}

/** The figures and the breakdown of every component. */
export function computeReputation(inputs: ReputationInputs): ReputationResult {
  const e = evaluate(inputs);
  return {
    ...scoresOf(e, inputs),
    components: {
      successRate: {
        value: round(e.successRate, 4),
        weight: WEIGHTS.successRate,
        points: round(e.parts.successRate * 100),
        basis: e.successBasis,
        completions: inputs.completions,
        totalClaimed: inputs.totalClaimed,
        failures: inputs.failures,
      },
      uptime: {
        value: round(e.uptimeScore, 4),
        weight: WEIGHTS.uptime,
        points: round(e.parts.uptime * 100),
        basis: e.uptimeBasis,
        checks: inputs.checks,
        successfulChecks: inputs.ups,
        windowDays: UPTIME_WINDOW_DAYS,
      },
      responseTime: {
        value: e.responseScore,
        weight: WEIGHTS.responseTime,
        points: round(e.parts.responseTime * 100),
        basis: e.responseBasis,
        avgResponseTimeMs: e.avgMs === null ? null : Math.round(e.avgMs),
        band: e.avgMs === null ? "none" : band(e.avgMs),
      },
      attestations: {
        value: round(e.attScore / 5, 4),
        weight: WEIGHTS.attestations,
        points: round(e.parts.attestations * 100),
        count: inputs.attestationCount,
        attestationScore: round(e.attScore, 4),
      },
      verifications: {
        value: round(e.verification.points / VERIFICATION_POINTS_CAP, 4),
        weight: WEIGHTS.verifications,
        points: round(e.parts.verifications * 100),
        badgePoints: e.verification.points,
        cap: VERIFICATION_POINTS_CAP,
        badges: e.verification.counted,
      },
      capabilities: Object.fromEntries(
        AREAS.map(([area], i) => [area, e.areas[i]!]),
      ) as ReputationComponents["capabilities"],
    },
  };
}

// ---- stored form ----------------------------------------------------------------------------------------------------

/**
 * The inputs a stored score was computed from, as a compact positional JSON array (stored with every reputation row
 * and history snapshot, so it is kept small); the breakdown is rebuilt from it on read with computeReputation.
 */
export type StoredInputs = [
  version: 1,
  now: string,
  registeredAt: string,
  totalClaimed: number,
  completions: number,
  failures: number,
  checks: number,
  ups: number,
  latencySumMs: number,
  attestationCount: number,
  attestationWeightedSum: number,
  attestationWeightSum: number,
  expertiseWeightedSum: number,
  expertiseWeightSum: number,
  badges: string[],
  skillScores: Record<string, number>,
  capabilities: string[],
  programmingLangs: string[],
];

export function toStoredInputs(i: ReputationInputs): StoredInputs {
  return [
    1,
    i.now.toString(),
    i.registeredAt.toString(),
    i.totalClaimed,
    i.completions,
    i.failures,
    i.checks,
    i.ups,
    i.latencySumMs,
    i.attestationCount,
    i.attestationWeightedSum,
    i.attestationWeightSum,
    i.expertiseWeightedSum,
    i.expertiseWeightSum,
    i.badges,
    i.skillScores,
    i.capabilities,
    i.programmingLangs,
  ];
}

export function fromStoredInputs(s: StoredInputs): ReputationInputs {
  return {
    now: BigInt(s[1]),
    registeredAt: BigInt(s[2]),
    totalClaimed: s[3],
    completions: s[4],
    failures: s[5],
    checks: s[6],
    ups: s[7],
    latencySumMs: s[8],
    attestationCount: s[9],
    attestationWeightedSum: s[10],
    attestationWeightSum: s[11],
    expertiseWeightedSum: s[12],
    expertiseWeightSum: s[13],
    badges: s[14],
    skillScores: s[15],
    capabilities: s[16],
    programmingLangs: s[17],
  };
}

export function isStoredInputs(value: unknown): value is StoredInputs {
  return Array.isArray(value) && value[0] === 1 && value.length === 18;
}
