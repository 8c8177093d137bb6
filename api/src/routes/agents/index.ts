import { router } from "../../lib/openapi.ts";
import { claimRoutes } from "./claim.ts";
import { profileRoutes } from "./profile.ts";
import { readRoutes } from "./read.ts";
import { registerRoutes } from "./register.ts";

// Static paths (register, claim-info) are mounted before the /{id} routes.
export const agentRoutes = router()
  .route("/", registerRoutes)
  .route("/", claimRoutes)
  .route("/", readRoutes)
  .route("/", profileRoutes);
