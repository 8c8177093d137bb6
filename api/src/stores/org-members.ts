// Team members of an organization (api.org_member); their keys are in org-credentials.ts.
import { and, asc, count, eq } from "drizzle-orm";
import type { Deps } from "../context.ts";
import type { Db } from "../db/index.ts";
import { orgMember } from "../db/schema/index.ts";
import type { Role } from "../domain/plans.ts";

export type MemberRow = typeof orgMember.$inferSelect;

export async function countMembers(tx: Db, orgId: string, role?: Role): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(orgMember)
    .where(role ? and(eq(orgMember.orgId, orgId), eq(orgMember.role, role)) : eq(orgMember.orgId, orgId));
  return row!.n;
}

/** Adds a member; null when the e-mail is a member already. */
export async function insertMember(
  tx: Db,
  m: { id: string; orgId: string; email: string; role: Role },
): Promise<MemberRow | null> {
  const [row] = await tx.insert(orgMember).values(m).onConflictDoNothing().returning();
  return row ?? null;
}

export async function listMembers(deps: Pick<Deps, "db">, orgId: string): Promise<MemberRow[]> {
  return deps.db
    .select()
    .from(orgMember)
    .where(eq(orgMember.orgId, orgId))
    .orderBy(asc(orgMember.createdAt), asc(orgMember.id));
}

/** The member, locked for the transaction. */
export async function lockMember(tx: Db, orgId: string, memberId: string): Promise<MemberRow | null> {
  const [row] = await tx
    .select()
    .from(orgMember)
    .where(and(eq(orgMember.id, memberId), eq(orgMember.orgId, orgId)))
    .for("update");
  return row ?? null;
}

export async function deleteMember(tx: Db, memberId: string): Promise<void> {
  await tx.delete(orgMember).where(eq(orgMember.id, memberId));
}

export async function setMemberRole(tx: Db, memberId: string, role: Role): Promise<MemberRow> {
  const [row] = await tx.update(orgMember).set({ role }).where(eq(orgMember.id, memberId)).returning();
  return row!;
}
