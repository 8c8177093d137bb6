// Organization scope of the API's pool (docs/decisions.md, "Organization isolation: row-level security"). While a
// request made with an organization's credentials runs (`orgScope.run(orgId, ...)`), every connection it takes from
// the pool first becomes the role agenthub_tenant with app.org_id = orgId, so the row-level security policies of
// migration 140 apply to every query, including one that forgets its organization filter. A connection keeps its
// scope in the pool and is reset (or re-scoped) when code outside that scope takes it; if that fails it is
// destroyed, never reused with a stale scope.
import { AsyncLocalStorage } from "node:async_hooks";
import pg from "pg";

export const TENANT_ROLE = "agenthub_tenant";

const scope = new AsyncLocalStorage<string | undefined>();
const scopedClients = new WeakSet<object>();
/** Scoped clients currently inside asSystem (nested calls must not restore the tenant role early). */
const systemDepth = new WeakMap<object, number>();

/**
 * The organization scope each connection's session is in (SYSTEM: the pool's own role, no organization; absent:
 * not known, set on the next checkout). A scope is set when a connection is taken and left on it when it goes back
 * to the pool: the next request of the same organization takes it without a round trip; anything else resets or
 * re-scopes it first.
 */
const SYSTEM = Symbol("system");
const sessionScope = new WeakMap<object, string | typeof SYSTEM>();

/** Runs `fn` with every pool connection it takes scoped to organization `orgId`. */
export const runInOrgScope = <T>(orgId: string, fn: () => T): T => scope.run(orgId, fn);

/** The organization the current request's queries are scoped to, if any. */
export const currentOrgScope = (): string | undefined => scope.getStore();

type Queryable = Pick<pg.Pool, "query"> | Pick<pg.PoolClient, "query">;

/**
 * Runs `fn` outside any organization scope: for platform work a tenant's request causes but that belongs to other
 * organizations too (queuing another organization's webhook events). On the pool it takes unscoped connections; on
 * a client taken inside the scope it leaves the tenant role for the duration (same transaction) and comes back.
 */
export async function asSystem<T>(db: Queryable, fn: () => Promise<T>): Promise<T> {
  if (!scopedClients.has(db)) return scope.run(undefined, fn);
  const depth = systemDepth.get(db) ?? 0;
  if (depth > 0) return fn(); // already outside the tenant role (nested call)
  // Until the tenant role is back, the session's scope is unknown: a checkout would set it again.
  const session = sessionScope.get(db);
  sessionScope.delete(db);
  await db.query("reset role");
  systemDepth.set(db, 1);
  try {
    return await fn();
  } finally {
    systemDepth.delete(db);
    await db.query("select set_config('role', $1, false)", [TENANT_ROLE]);
    if (session !== undefined) sessionScope.set(db, session);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: pg's callback type
type Callback = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: any) => void) => void;

/** pg.Pool whose connections follow the organization scope of the code that takes them. */
export class OrgScopedPool extends pg.Pool {
  // biome-ignore lint/suspicious/noExplicitAny: pg's overloads (promise and callback forms)
  override connect(callback?: Callback): any {
    const scoped = this.scopedConnect(scope.getStore());
    if (!callback) return scoped;
    scoped.then(
      (client) => callback(undefined, client, client.release),
      (err) => callback(err, undefined, () => {}),
    );
    return undefined;
  }

  private async scopedConnect(orgId: string | undefined): Promise<pg.PoolClient> {
    const client = await super.connect();
    const wanted = orgId ?? SYSTEM;
    if (sessionScope.get(client) !== wanted) {
      // Forget the session's scope until the change is confirmed: a connection whose state is unknown is destroyed.
      sessionScope.delete(client);
      try {
        if (orgId === undefined) await client.query("reset role; reset app.org_id");
        else {
          await client.query("select set_config('role', $1, false), set_config('app.org_id', $2, false)", [
            TENANT_ROLE,
            orgId,
          ]);
        }
      } catch (err) {
        client.release(err as Error);
        throw err;
      }
      sessionScope.set(client, wanted);
    }
    if (orgId === undefined) scopedClients.delete(client);
    else scopedClients.add(client);
    return client;
  }
}

/**
 * Every table of schema api with an `org_id` column gets row-level security and the tenant policy of migration 140,
 * whichever migration created it: a new organization-owned table cannot be left outside the organization scope.
 * Idempotent; run after the migrations at every start (racing processes: the loser's duplicate is ignored).
 */
export async function ensureTenantPolicies(pool: pg.Pool): Promise<void> {
  await pool.query(`
    do $$
    declare t text;
    begin
      for t in
        select c.relname from pg_class c
          join pg_namespace n on n.oid = c.relnamespace
          join pg_attribute a on a.attrelid = c.oid and a.attname = 'org_id' and not a.attisdropped
         where n.nspname = 'api' and c.relkind = 'r'
           and not exists (select 1 from pg_policy p where p.polrelid = c.oid and p.polname = 'tenant_rows')
      loop
        begin
          execute format('alter table api.%I enable row level security', t);
          execute format('create policy tenant_rows on api.%I for all to ${TENANT_ROLE}
                            using (api.tenant_sees(org_id::text)) with check (api.tenant_sees(org_id::text))', t);
        exception when duplicate_object then
          null;
        end;
      end loop;
    end $$`);
}
