// The full AgentHub client (signed, paid and chain flows): the SDK, talking to the API at this page's own origin.
// Import it only from code that signs and load that code on demand (`await import("./hub.ts")`); reads go through
// reader.ts, which keeps the explorer's first load small.
import { AgentHub } from "@agenthub/sdk";

export const hub = new AgentHub({ apiUrl: location.origin });
