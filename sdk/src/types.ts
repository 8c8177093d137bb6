// Types derived from the generated OpenAPI types (sdk/src/generated/openapi.ts, made by `pnpm run compile`).
import type { components, paths } from "./generated/openapi.ts";

export type { components, paths };
export type Schemas = components["schemas"];

type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;

/** The JSON request body of an operation. */
export type RequestBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: infer R;
}
  ? Json<NonNullable<R>>
  : never;

/** The JSON answer of an operation's success (200 or 201). */
export type Answer<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: infer A }
    ? Json<A>
    : R extends { 201: infer A }
      ? Json<A>
      : never
  : never;

/** A signed write's body without the signature fields the SDK adds. */
export type Unsigned<B> = Omit<B, "message" | "signature">;

export type Config = Answer<"/api/config", "get">;
export type Run = Schemas["Run"];
export type RunState = Schemas["RunState"];

/** The query parameters of an operation. */
export type Query<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  parameters: { query?: infer Q };
}
  ? NonNullable<Q>
  : never;
