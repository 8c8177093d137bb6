// A domain verification requested: a fresh token the agent publishes as TXT at _hub.<domain>, checkable for 7 days.
import { randomBytes } from "node:crypto";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { domainVerifiedElsewhere, insertRequest } from "../../stores/verifications.ts";
import { requireAgentFacts } from "../guards.ts";
import { CHALLENGE_SECONDS } from "./badges.ts";
import { dnsRecordFor, toView, type VerificationView } from "./verification-view.ts";

export interface RequestDomainParameters {
  agentId: number;
  domain: string;
}

export interface RequestDomainReturnType {
  verification: VerificationView;
  instructions: string;
}

export async function requestDomain(deps: Deps, p: RequestDomainParameters): Promise<RequestDomainReturnType> {
  await requireAgentFacts(deps, p.agentId);
  const now = await deps.clock.now();
  if (await domainVerifiedElsewhere(deps.pool, p.domain, now)) {
    throw apiError("DOMAIN_ALREADY_VERIFIED", `${p.domain} is already verified`);
  }
  const token = randomBytes(16).toString("hex");
  const row = await insertRequest(deps.pool, {
    agentId: p.agentId,
    type: "domain",
    domain: p.domain,
    token,
    now,
    expiresAt: now + CHALLENGE_SECONDS,
  });
  return {
    verification: toView(row, now),
    instructions:
      `Publish a DNS TXT record at _hub.${p.domain} with the value ${dnsRecordFor(token)}, then call ` +
      `POST /api/verifications/${row.id}/verify. Propagation may take minutes to 48 hours; this request can be ` +
      `verified until ${row.expires_at!.toISOString()}. A verified domain is valid for 1 year; verify again to renew.`,
  };
}
