// An agent's verifications, newest first, as of chain time.
import type { Deps } from "../../context.ts";
import { verificationsOf } from "../../stores/verifications.ts";
import { requireAgentFacts } from "../guards.ts";
import { toView, type VerificationView } from "./verification-view.ts";

export async function listVerifications(
  deps: Deps,
  { agentId }: { agentId: number },
): Promise<{ agentId: number; verifications: VerificationView[] }> {
  await requireAgentFacts(deps, agentId);
  const [now, rows] = await Promise.all([deps.clock.now(), verificationsOf(deps.pool, agentId)]);
  return { agentId, verifications: rows.map((r) => toView(r, now)) };
}
