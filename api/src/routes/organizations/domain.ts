// A custom domain: configured (CNAME and TXT records to publish), then verified through a real DNS lookup.
import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { configureDomain } from "../../use-cases/organizations/configure-domain.ts";
import { verifyDomain } from "../../use-cases/organizations/verify-domain.ts";
import { dnsRecord, domainName, orgIdParam } from "./schemas.ts";
import { domainOut as domainAnswer } from "./views.ts";

const tags = ["organizations"];

const domainOut = z.object({
  domain: z.string(),
  status: z.enum(["pending", "active"]),
  dnsRecords: z.array(dnsRecord),
  verifiedAt: z.string().nullable(),
});

const domainRoute = createRoute({
  method: "post",
  path: "/{id}/domain",
  tags,
  summary: "Configure a custom domain: publish the CNAME and the TXT record, then call domain/verify",
  request: { params: orgIdParam, body: jsonBody(z.object({ domain: domainName }).strict()) },
  responses: { 200: json(domainOut, "Pending domain"), ...errorResponses(400, 401, 403, 404, 409) },
});

const verifyDomainRoute = createRoute({
  method: "post",
  path: "/{id}/domain/verify",
  tags,
  summary: "Look up the TXT record; the domain becomes active when it holds the token",
  request: { params: orgIdParam },
  responses: {
    200: json(domainOut.extend({ verified: z.literal(true) }), "Active domain"),
    ...errorResponses(400, 401, 403, 404, 409, 503),
  },
});

export const domainRoutes = router()
  .openapi(domainRoute, async (c) => {
    const deps = c.get("deps");
    const org = await configureDomain(deps, { orgId: c.req.valid("param").id, domain: c.req.valid("json").domain });
    return c.json(domainAnswer(deps, org), 200);
  })
  .openapi(verifyDomainRoute, async (c) => {
    const deps = c.get("deps");
    const org = await verifyDomain(deps, { orgId: c.req.valid("param").id });
    return c.json({ ...domainAnswer(deps, org), verified: true as const }, 200);
  });
