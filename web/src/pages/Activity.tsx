// The live feed: the app polls GET /api/activity with the newest cursor it holds (docs/decisions.md, "Activity
// feed") and puts what is new on top. A polite live region announces new events without moving focus.
import type { Answer } from "@agenthub/sdk/read";
import { Link } from "@tanstack/react-router";
import { useEffect, useRef, useState } from "react";
import { ErrorNote, Loading } from "../components/Status.tsx";
import { TxHash } from "../components/TxHash.tsx";
import { dateTime, shortAddress, stateLabel, usdc } from "../format.ts";
import { reader } from "../reader.ts";

type ActivityEvent = Answer<"/api/activity", "get">["events"][number];

const POLL_MS = 3_000;
const KEEP = 100;

export function ActivityPage() {
  const [events, setEvents] = useState<ActivityEvent[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [fresh, setFresh] = useState(0);
  const cursor = useRef<string | null>(null);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const answer = await reader.activity(cursor.current ? { after: cursor.current, limit: 50 } : { limit: 30 });
        if (stopped) return;
        const first = cursor.current === null;
        cursor.current = answer.cursor;
        setError(null);
        setFresh(first ? 0 : answer.events.length);
        setEvents((old) => [...answer.events, ...(old ?? [])].slice(0, KEEP));
      } catch (e) {
        if (!stopped) setError(e);
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);

  return (
    <>
      <h1>Live activity</h1>
      <p className="muted">Run events as the chain indexes them; new ones appear on top every few seconds.</p>
      <p className="sr-only" aria-live="polite">
        {fresh > 0 ? `${fresh} new events` : ""}
      </p>
      {error ? <ErrorNote error={error} /> : null}
      {events === null && !error ? <Loading what="activity" /> : null}
      {events && events.length === 0 ? <p>No run events yet.</p> : null}
      <ol className="feed">
        {(events ?? []).map((e) => (
          <li key={e.cursor} data-cursor={e.cursor}>
            <strong>{stateLabel(e.kind)}</strong>{" "}
            {e.bountyId === null ? (
              `escrow run ${e.onchainRunId}`
            ) : (
              <Link to="/runs/$runId" params={{ runId: String(e.bountyId) }}>
                run #{e.bountyId}
              </Link>
            )}
            {e.agentId === null ? null : (
              <>
                {" "}
                by{" "}
                <Link to="/agents/$agentId" params={{ agentId: String(e.agentId) }}>
                  agent #{e.agentId}
                </Link>
              </>
            )}
            {e.amount ? ` · ${usdc(e.amount)}` : ""} · {dateTime(e.timestamp)} · from{" "}
            <code title={e.actor}>{shortAddress(e.actor)}</code> · tx <TxHash hash={e.txHash} />
          </li>
        ))}
      </ol>
    </>
  );
}
