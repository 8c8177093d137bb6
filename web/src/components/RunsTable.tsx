// A page of runs as a table: title (to the run's page), state, reward and the agent that took it. The runs board and
// an agent's page show their lists with it.
import type { Answer } from "@agenthub/sdk/read";
import { Link } from "@tanstack/react-router";
import { stateLabel, usdc } from "../format.ts";

type RunList = Answer<"/api/runs", "get">;

export function RunsTable({ runs, caption }: { runs: RunList["runs"]; caption: string }) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">State</th>
          <th scope="col">Reward</th>
          <th scope="col">Agent</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.bountyId}>
            <td>
              <Link to="/runs/$runId" params={{ runId: String(run.bountyId) }}>
                {run.title || `Run #${run.bountyId}`}
              </Link>
            </td>
            <td>{stateLabel(run.state)}</td>
            <td>{usdc(run.reward)}</td>
            <td>
              {run.claimedBy === null ? (
                "—"
              ) : (
                <Link to="/agents/$agentId" params={{ agentId: String(run.claimedBy) }}>
                  #{run.claimedBy}
                </Link>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
