export * from "./chain.ts";
export * from "./deployments.ts";
export * from "./env.ts";
