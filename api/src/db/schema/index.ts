// Every API-owned table, one module per table family.
export * from "./agents.ts";
export * from "./organizations.ts";
export * from "./paymaster.ts";
export * from "./payments.ts";
export * from "./platform.ts";
export * from "./reports.ts";
export * from "./reputation.ts";
export * from "./runs.ts";
export * from "./search.ts";
export * from "./subscriptions.ts";
export * from "./verifications.ts";
