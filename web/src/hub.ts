// The one AgentHub client of the app: the SDK, talking to the API at this page's own origin.
import { AgentHub } from "@agenthub/sdk";

export const hub = new AgentHub({ apiUrl: location.origin });
