// The explorer's AgentHub client: the SDK's read-only entry (no signing, x402 or chain code), talking to the API at
// this page's own origin. Pages that sign load the full client (hub.ts) on demand, so the explorer's first load
// carries none of it (bench/web-budget.ts measures it).
import { AgentHubReader } from "@agenthub/sdk/read";

export const reader = new AgentHubReader({ apiUrl: location.origin });
