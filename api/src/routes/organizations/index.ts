// Organizations (supplement §4): white-label tenants with their own API credentials, team, custom domain, agents,
// usage statistics, reputation-sharing settings and webhooks. Who may call what: auth/roles.ts, checked for every
// organization route before its request is validated; organization keys: auth/org-key.ts.
import { orgRoleGate } from "../../auth/roles.ts";
import { router } from "../../lib/openapi.ts";
import { orgAgentRoutes } from "./agents.ts";
import { domainRoutes } from "./domain.ts";
import { memberRoutes } from "./members.ts";
import { organizationCoreRoutes } from "./organization.ts";
import { sharingRoutes } from "./sharing.ts";
import { webhookRoutes } from "./webhooks.ts";

const gated = router();
gated.use("/", orgRoleGate);
gated.use("/*", orgRoleGate);

export const organizationRoutes = gated
  .route("/", organizationCoreRoutes)
  .route("/", memberRoutes)
  .route("/", domainRoutes)
  .route("/", orgAgentRoutes)
  .route("/", sharingRoutes)
  .route("/", webhookRoutes);
