// Checking a domain verification's TXT record (also renews a VERIFIED one): the badge holds for 12 months, and a
// domain backs one unexpired badge at a time.
import type { Deps } from "../../context.ts";
import { DOMAIN_BADGE } from "../../domain/reputation.ts";
import { apiError } from "../../errors.ts";
import { lookupTxt } from "../../lib/net/dns-txt.ts";
import { addMonths } from "../../lib/time.ts";
import { domainVerifiedElsewhere, markChecked, markVerified } from "../../stores/verifications.ts";
import { badgeGranted, usableVerification } from "./badges.ts";
import { dnsRecordFor, toView, type VerificationView } from "./verification-view.ts";

const VALIDITY_MONTHS = 12;

export async function checkDomain(deps: Deps, { id }: { id: number }): Promise<{ verification: VerificationView }> {
  const { row, now } = await usableVerification(deps, id, "domain");
  const domain = row.domain!;
  if (await domainVerifiedElsewhere(deps.pool, domain, now, id)) {
    throw apiError("DOMAIN_ALREADY_VERIFIED", `${domain} is already verified`);
  }
  const expected = dnsRecordFor(row.token!);
  const values = await lookupTxt(deps, `_hub.${domain}`);
  await markChecked(deps.pool, id, now);
  if (!values.some((v) => v.trim() === expected)) {
    throw apiError(
      "DNS_RECORD_NOT_FOUND",
      `no TXT record "${expected}" at _hub.${domain} (found ${values.length} TXT value(s)); DNS changes may take up to 48 hours`,
    );
  }
  const updated = await markVerified(deps.pool, id, {
    badge: DOMAIN_BADGE,
    now,
    expiresAt: addMonths(now, VALIDITY_MONTHS),
  });
  if (updated === "DOMAIN_TAKEN") throw apiError("DOMAIN_ALREADY_VERIFIED", `${domain} is already verified`);
  if (!updated) throw apiError("VERIFICATION_EXPIRED", `verification ${id} has expired`);
  const verification = toView(updated.row, now);
  if (updated.granted) await badgeGranted(deps, verification);
  return { verification };
}
