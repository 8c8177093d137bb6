// Search every agent by words and filters: a paid call ($0.001 in USDC through x402). The wallet signs one EIP-3009
// transfer authorization for exactly the announced price; the app says so before the wallet asks.
import type { SearchAnswer } from "@agenthub/sdk";
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { usdc } from "../format.ts";
import { reader } from "../reader.ts";
import { SignatureRequest } from "../wallet/SignatureRequest.tsx";
import { useWallet } from "../wallet/state.tsx";
import { ErrorNote } from "./Status.tsx";
import { Tags } from "./Tags.tsx";

const SEARCH_PATH = "/api/intelligence/search";

export default function PaidSearch() {
  const { wallet } = useWallet();
  const config = useQuery({
    queryKey: ["config"],
    queryFn: () => reader.config(),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const [query, setQuery] = useState("");
  const [capability, setCapability] = useState("");
  const [minScore, setMinScore] = useState("");
  const [asking, setAsking] = useState(false);
  const [answer, setAnswer] = useState<(SearchAnswer & { payment: { txHash?: string } }) | null>(null);
  const [error, setError] = useState<unknown>(null);
  const price = config.data?.prices[SEARCH_PATH]?.usdc;

  const run = async () => {
    if (!wallet) return;
    setError(null);
    try {
      // The paying client (x402, EIP-3009) loads only when someone pays.
      const { hub } = await import("../hub.ts");
      const result = await hub.search(
        {
          query: query.trim() || undefined,
          capabilities: capability.trim() ? [capability.trim().toLowerCase()] : undefined,
          minScore: minScore ? Number(minScore) : undefined,
          limit: 20,
        },
        { signer: wallet.signer },
      );
      setAnswer(result);
    } catch (e) {
      setError(e);
    } finally {
      setAsking(false);
    }
  };

  return (
    <section aria-labelledby="search" className="panel">
      <h2 id="search">Search all agents</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setAsking(true);
        }}
      >
        <div className="row">
          <label className="field">
            <span>Words (name, description, skills)</span>
            <input value={query} onChange={(e) => setQuery(e.target.value)} maxLength={200} />
          </label>
          <label className="field">
            <span>Capability</span>
            <input value={capability} onChange={(e) => setCapability(e.target.value)} maxLength={64} />
          </label>
          <label className="field">
            <span>Minimum score (0-100)</span>
            <input type="number" min={0} max={100} value={minScore} onChange={(e) => setMinScore(e.target.value)} />
          </label>
        </div>
        <p className="muted">
          Each search costs {price ? usdc(price) : "…"}, paid in USDC from your wallet (no ETH needed).
        </p>
        <button type="submit" disabled={!wallet || !price}>
          Search
        </button>
        {!wallet ? <span className="muted"> Connect a wallet first (top right).</span> : null}
      </form>
      {asking && wallet && price && config.data ? (
        <SignatureRequest
          title="Pay for one search"
          lines={[
            `Your wallet signs a USDC transfer authorization (EIP-3009) of ${usdc(price)} (${price} base units).`,
            `It pays ${config.data.platformRecipient} once, for this one search, and expires within minutes.`,
            "No ETH and no gas: the API settles the transfer on chain.",
          ]}
          cost={usdc(price)}
          onCancel={() => setAsking(false)}
          onConfirm={run}
        />
      ) : null}
      {error ? <ErrorNote error={error} /> : null}
      {answer ? (
        <div aria-live="polite">
          <p>
            {answer.total} {answer.totalExact ? "" : "(about) "}agents match.
            {answer.payment.txHash ? ` Paid in transaction ${answer.payment.txHash}.` : ""}
          </p>
          <ul className="grid">
            {answer.results.map((r) => (
              <li key={r.id} className="card">
                <h3>
                  <Link to="/agents/$agentId" params={{ agentId: String(r.id) }}>
                    {r.name || `Agent #${r.id}`}
                  </Link>
                </h3>
                <p className="muted">score {r.reputation.score}</p>
                <Tags items={r.capabilities} label="Capabilities" />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
