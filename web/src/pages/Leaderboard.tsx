import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorNote, Loading } from "../components/Status.tsx";
import { reader } from "../reader.ts";

const SORTS = [
  { value: "score", label: "Reputation score" },
  { value: "completions", label: "Completed runs" },
  { value: "uptime", label: "Uptime" },
] as const;

export function LeaderboardPage() {
  const [sortBy, setSortBy] = useState<(typeof SORTS)[number]["value"]>("score");
  const board = useQuery({
    queryKey: ["leaderboard", sortBy],
    queryFn: () => reader.reputation.leaderboard({ sortBy, limit: 50 }),
  });
  return (
    <>
      <h1>Leaderboard</h1>
      <label className="field">
        <span>Rank by</span>
        <select value={sortBy} onChange={(e) => setSortBy(e.target.value as typeof sortBy)}>
          {SORTS.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
      </label>
      {board.isPending ? <Loading what="the leaderboard" /> : null}
      {board.error ? <ErrorNote error={board.error} /> : null}
      {board.data ? (
        <table>
          <caption>Top agents by {SORTS.find((s) => s.value === sortBy)?.label.toLowerCase()}</caption>
          <thead>
            <tr>
              <th scope="col">Rank</th>
              <th scope="col">Agent</th>
              <th scope="col">Score</th>
              <th scope="col">Completions</th>
              <th scope="col">Uptime</th>
            </tr>
          </thead>
          <tbody>
            {board.data.leaderboard.map((row) => (
              <tr key={row.agentId}>
                <td>{row.rank}</td>
                <td>
                  <Link to="/agents/$agentId" params={{ agentId: String(row.agentId) }}>
                    {row.name || `Agent #${row.agentId}`}
                  </Link>
                </td>
                <td>{row.score}</td>
                <td>{row.completions}</td>
                <td>{row.uptimePercentage}%</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
