import { router } from "../../lib/openapi.ts";
import { actionRoutes } from "./actions.ts";
import { consentRoutes } from "./consent.ts";
import { createRoutes } from "./create.ts";
import { readRoutes } from "./read.ts";

/** Runs (bounties): reads, creation and funding, and every signed lifecycle step. */
export const runRoutes = router()
  .route("/", readRoutes)
  .route("/", createRoutes)
  .route("/", actionRoutes)
  .route("/", consentRoutes);
