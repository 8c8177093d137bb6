// What the drizzle definitions say the database looks like: relation by relation, each column's SQL type and
// nullability. test/e2e/db-schema.test.ts compares it with the migrated database.
import { getTableConfig, getViewConfig, type PgColumn, PgTable, type PgView } from "drizzle-orm/pg-core";
import { chainViews } from "./chain.ts";
import * as schema from "./schema/index.ts";

export interface ColumnShape {
  name: string;
  type: string;
  nullable: boolean;
}

export interface RelationShape {
  schema: string;
  name: string;
  columns: ColumnShape[];
}

const columnsOf = (columns: PgColumn[]): ColumnShape[] =>
  columns.map((c) => ({ name: c.name, type: c.getSQLType(), nullable: !c.notNull }));

/** The API-owned tables (schema api). */
export function apiTableShapes(): RelationShape[] {
  return (Object.values(schema) as unknown[])
    .filter((t): t is PgTable => t instanceof PgTable)
    .map((t) => {
      const config = getTableConfig(t);
      return { schema: config.schema ?? "public", name: config.name, columns: columnsOf(config.columns) };
    });
}

/** The indexer's views as the API reads them, in schema `schemaName`. */
export function chainViewShapes(schemaName: string): RelationShape[] {
  const { names: _, ...views } = chainViews(schemaName);
  return Object.values(views).map((v) => {
    const config = getViewConfig(v as PgView);
    return {
      schema: config.schema ?? "public",
      name: config.name,
      columns: columnsOf(Object.values(config.selectedFields) as PgColumn[]),
    };
  });
}
