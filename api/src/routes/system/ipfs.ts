import { createRoute, z } from "@hono/zod-openapi";
import { errors } from "../../errors.ts";
import { router } from "../../lib/openapi.ts";

const route = createRoute({
  method: "get",
  path: "/{cid}",
  tags: ["system"],
  summary: "Content stored by AgentHub, addressed by its CIDv1 (immutable)",
  request: { params: z.object({ cid: z.string().regex(/^b[a-z2-7]{20,120}$/, "a base32 CIDv1") }) },
  responses: { 200: { description: "The stored bytes" }, 404: { description: "Unknown CID" } },
});

export const ipfsRoutes = router().openapi(route, async (c) => {
  const { ipfs } = c.get("deps");
  const found = await ipfs.get(c.req.valid("param").cid);
  if (!found) throw errors.notFound("CID_NOT_FOUND", "no content with that CID");
  return c.body(new Uint8Array(found.content), 200, {
    "content-type": found.contentType,
    "cache-control": "public, max-age=31536000, immutable",
  });
});
