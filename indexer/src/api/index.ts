// Ponder requires an API entry; AgentHub's public API is the separate `api` service, which reads the views schema.
import { Hono } from "hono";

const app = new Hono();
export default app;
