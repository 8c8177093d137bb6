// What a signed flow is doing now, in words: the wallet prompt, the API call, the transaction, the index catching up
// (a pending answer is followed until the indexer shows it); then the outcome or the API's error and what to do.
import type { Progress } from "@agenthub/sdk";
import type { ReactNode } from "react";
import { ErrorNote } from "../components/Status.tsx";
import type { FlowState } from "./useFlow.ts";

const STAGE: Record<Progress["stage"], string> = {
  sign: "Waiting for your wallet",
  api: "Sent to AgentHub",
  chain: "Waiting for the transaction",
  retry: "On chain; waiting for the index to catch up",
};

export function FlowStatus<T>({ flow, done }: { flow: FlowState<T>; done?: (result: T) => ReactNode }) {
  if (flow.status === "idle") return null;
  return (
    <div className="flow" aria-live="polite">
      {flow.status === "running" ? (
        <>
          <p>
            <strong>Working…</strong>
          </p>
          <ol className="steps">
            {flow.steps.map((step) => (
              <li key={step.n}>
                {STAGE[step.stage]}: <span className="muted">{step.message}</span>
              </li>
            ))}
          </ol>
        </>
      ) : null}
      {flow.status === "failed" ? <ErrorNote error={flow.error} /> : null}
      {flow.status === "done" && done && flow.result !== undefined ? (
        <div className="ok">{done(flow.result)}</div>
      ) : null}
    </div>
  );
}
