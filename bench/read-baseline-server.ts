// The reads benchmark's yardstick: Hono on @hono/node-server with a pg pool (the API's stack and pool size), one
// primary-key read per request, the row as JSON. What the API's reads are compared with (bench/reads.ts).
//
//   DATABASE_URL=postgres://... PORT=0 tsx bench/read-baseline-server.ts   (prints "listening <port>")
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 20) });
const app = new Hono();
app.get("/agents/:id", async (c) => {
  const { rows } = await pool.query("select * from api.agent_profile where agent_id = $1", [Number(c.req.param("id"))]);
  return rows[0] ? c.json(rows[0]) : c.json({ error: "not found" }, 404);
});
const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: Number(process.env.PORT ?? 0) }, () => {
  console.log(`listening ${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => server.close(() => pool.end().then(() => process.exit(0))));
