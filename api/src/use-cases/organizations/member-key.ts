// Member API keys: one live key per team member (`ah_member_` + 32 random bytes), stored only as SHA-256 like the
// organization's keys, acting with the member's role (auth/roles.ts). Issuing a new one ends the member's earlier
// keys at once (a lost or leaked key); removing the member removes its keys (foreign key cascade).
import type pg from "pg";
import { displayPrefix, generateCredential, hashCredential } from "../../auth/credentials.ts";
import { endMemberKeys, insertCredential } from "../../stores/org-credentials.ts";

/** Inside the caller's transaction: a new key for the member, its earlier keys ended. */
export async function replaceMemberKey(client: pg.PoolClient, orgId: string, memberId: string): Promise<string> {
  const key = generateCredential("member");
  await endMemberKeys(client, memberId);
  await insertCredential(client, {
    hash: hashCredential(key),
    orgId,
    kind: "member",
    prefix: displayPrefix(key),
    memberId,
  });
  return key;
}
