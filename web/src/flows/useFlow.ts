// One signed flow at a time on a page: runs it with the connected wallet's SDK, collects the SDK's progress (waiting
// for a signature, the API, the chain, the indexer's catch-up) for the page to show, and keeps the error or result.
import type { Progress } from "@agenthub/sdk";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useRef, useState } from "react";
import { type ConnectedWallet, useWallet } from "../wallet/state.tsx";

export interface FlowState<T> {
  status: "idle" | "running" | "done" | "failed";
  /** The latest reports, each with its sequence number. */
  steps: (Progress & { n: number })[];
  result?: T;
  error?: unknown;
}

export function useFlow<T>() {
  const { wallet } = useWallet();
  const queries = useQueryClient();
  const [state, setState] = useState<FlowState<T>>({ status: "idle", steps: [] });
  const running = useRef(false);
  const run = useCallback(
    async (action: (wallet: ConnectedWallet) => Promise<T>): Promise<T | undefined> => {
      if (!wallet || running.current) return undefined;
      running.current = true;
      setState({ status: "running", steps: [] });
      let n = 0;
      const stop = (await import("../wallet/connect.ts")).onProgress((step) => {
        n += 1;
        const numbered = { ...step, n };
        setState((s) => ({ ...s, steps: [...s.steps, numbered].slice(-6) }));
      });
      try {
        const result = await action(wallet);
        setState((s) => ({ ...s, status: "done", result }));
        // Whatever the page shows may have changed: its reads run again (and keep polling where they poll).
        await queries.invalidateQueries();
        return result;
      } catch (error) {
        setState((s) => ({ ...s, status: "failed", error }));
        return undefined;
      } finally {
        stop();
        running.current = false;
      }
    },
    [wallet, queries],
  );
  const reset = useCallback(() => setState({ status: "idle", steps: [] }), []);
  return { ...state, run, reset };
}
