// The drizzle definitions are the API's picture of the database: the off-chain tables (api/src/db/schema, built by
// the numbered migrations) and the indexer's views (api/src/db/chain.ts, built by Ponder from
// indexer/ponder.schema.ts). This test compares both with the migrated database of the running stack, column by
// column (name, SQL type, nullability), so a migration or a Ponder schema change without the matching definition
// fails here instead of in a query.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { apiTableShapes, type ColumnShape, chainViewShapes } from "@agenthub/api/db/shape";
import { db, stack } from "../support/stack.ts";

type Shape = Map<string, { type: string; nullable: boolean }>;

/** format_type spells numeric(78,0) where drizzle spells numeric(78, 0); a bigserial column is a bigint with a default. */
const normalize = (type: string) =>
  type
    .replace(/\s*,\s*/g, ",")
    .toLowerCase()
    .replace(/^bigserial$/, "bigint")
    .replace(/^character varying/, "varchar");

async function dbShape(schemaName: string, relation: string): Promise<Shape> {
  const { rows } = await db.query<{ name: string; type: string; not_null: boolean }>(
    `select a.attname name, format_type(a.atttypid, a.atttypmod) type, a.attnotnull not_null
       from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relname = $2 and a.attnum > 0 and not a.attisdropped`,
    [schemaName, relation],
  );
  return new Map(rows.map((r) => [r.name, { type: normalize(r.type), nullable: !r.not_null }]));
}

function drizzleShape(columns: ColumnShape[]): Shape {
  return new Map(columns.map((c) => [c.name, { type: normalize(c.type), nullable: c.nullable }]));
}

after(() => db.end());

describe("drizzle schema matches the database", () => {
  it("every table in schema api is defined, with the same columns, types and nullability", async () => {
    const defined = new Set<string>();
    for (const config of apiTableShapes()) {
      assert.equal(config.schema, "api", `${config.name} belongs to schema api`);
      defined.add(config.name);
      const actual = await dbShape("api", config.name);
      assert.ok(actual.size > 0, `table api.${config.name} exists`);
      assert.deepEqual(drizzleShape(config.columns), actual, `columns of api.${config.name}`);
    }
    const { rows } = await db.query<{ relname: string }>(
      `select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'api' and c.relkind in ('r', 'p') and c.relname <> 'migration'`,
    );
    assert.deepEqual(
      rows.map((r) => r.relname).filter((name) => !defined.has(name)),
      [],
      "tables created by migrations but missing from api/src/db/schema",
    );
  });

  it("every indexer view the API reads has the columns and types of its definition", async () => {
    const schemaName = stack.env.INDEXER_SCHEMA ?? "chain";
    for (const config of chainViewShapes(schemaName)) {
      assert.equal(config.schema, schemaName);
      const actual = await dbShape(schemaName, config.name);
      assert.ok(actual.size > 0, `view ${schemaName}.${config.name} exists`);
      for (const [name, want] of drizzleShape(config.columns)) {
        const got = actual.get(name);
        assert.ok(got, `${schemaName}.${config.name}.${name} exists`);
        // Views carry no NOT NULL: only the type is comparable.
        assert.equal(want.type, got.type, `type of ${schemaName}.${config.name}.${name}`);
      }
    }
  });
});
