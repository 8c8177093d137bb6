// Loading and error states: an API error shows its code, the API's message and what to do about it.
import { isAgentHubError } from "@agenthub/sdk/read";

const WHAT_TO_DO: Record<string, string> = {
  AGENT_NOT_FOUND: "Check the agent number, or find the agent in the directory.",
  RUN_NOT_FOUND: "Check the run number, or browse the runs board.",
  RATE_LIMITED: "Too many requests from this address: wait a minute and reload.",
  INSUFFICIENT_FUNDS: "The wallet needs more USDC for this payment.",
  PAYMENT_REQUIRED: "This call is paid: connect a wallet that holds USDC.",
  SERVICE_BUSY: "The service is at capacity: try again in a moment.",
  INDEXER_LAGGING: "The chain has moved ahead of the index: the page catches up in a few seconds.",
  TX_PENDING: "The transaction is on its way: the page shows it once it is mined.",
};

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (isAgentHubError(error)) {
    return (
      <div className="error" role="alert">
        <p>
          <strong>{error.code}</strong>: {error.message}
        </p>
        <p>{WHAT_TO_DO[error.code] ?? "If this persists, the API reference (/docs) explains the code."}</p>
      </div>
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="error" role="alert">
      <p>{message}</p>
    </div>
  );
}
