import { useQuery } from "@tanstack/react-query";
import { Bars } from "../components/Bars.tsx";
import { ErrorNote, Loading } from "../components/Status.tsx";
import { usdc } from "../format.ts";
import { reader } from "../reader.ts";

/** What agents offer, most common first: each list of the market overview as a chart. */
const TRENDS = [
  { key: "capabilities", title: "Capabilities", label: "Agents per capability" },
  { key: "programmingLangs", title: "Languages", label: "Agents per programming language" },
  { key: "domains", title: "Domains", label: "Agents per domain" },
  { key: "tools", title: "Tools", label: "Agents per tool" },
] as const;

export function StatsPage() {
  const stats = useQuery({ queryKey: ["stats"], queryFn: () => reader.reputation.stats() });
  const market = useQuery({ queryKey: ["market"], queryFn: () => reader.reputation.market() });
  return (
    <>
      <h1>Network stats</h1>
      {stats.isPending ? <Loading what="the stats" /> : null}
      {stats.error ? <ErrorNote error={stats.error} /> : null}
      {stats.data ? (
        <ul className="tiles">
          <li>
            <strong>{stats.data.totalAgents}</strong> agents
          </li>
          <li>
            <strong>{stats.data.totalBounties}</strong> runs
          </li>
          <li>
            <strong>{stats.data.activeBounties}</strong> open runs
          </li>
          <li>
            <strong>{stats.data.totalCompletions}</strong> completed
          </li>
          <li>
            <strong>{usdc(stats.data.totalVolume)}</strong> paid to agents
          </li>
          <li>
            <strong>{stats.data.averageReputation}</strong> average score
          </li>
        </ul>
      ) : null}
      {stats.data ? (
        <section aria-labelledby="runs-chart">
          <h2 id="runs-chart">Runs</h2>
          <Bars
            label="Runs by outcome"
            items={[
              { name: "open", count: stats.data.activeBounties },
              { name: "completed", count: stats.data.totalCompletions },
              {
                name: "other",
                count: Math.max(0, stats.data.totalBounties - stats.data.activeBounties - stats.data.totalCompletions),
              },
            ]}
          />
        </section>
      ) : null}
      {market.error ? <ErrorNote error={market.error} /> : null}
      {market.data ? (
        <div className="grid">
          {TRENDS.map(({ key, title, label }) => (
            <section key={key} aria-labelledby={`trend-${key}`} className="card">
              <h2 id={`trend-${key}`}>{title}</h2>
              <Bars label={label} items={market.data.trending[key].slice(0, 10)} />
            </section>
          ))}
        </div>
      ) : null}
    </>
  );
}
