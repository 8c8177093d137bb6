// The deployment the indexer runs for (read from disk once, like ponder.config.ts does).
import { loadDeployments } from "@agenthub/common";
import { loadIndexerEnv } from "../../env.ts";

export const deployments = loadDeployments(loadIndexerEnv().DEPLOYMENTS_FILE);
