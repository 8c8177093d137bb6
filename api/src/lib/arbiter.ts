// Dispute resolution is RunEscrow's ARBITER_ROLE, held by the timelock and a configured arbiter, never by the
// relayer (docs/decisions.md, "Relayed run actions need the party's consent"). When this process is given the
// arbiter's key (ARBITER_PRIVATE_KEY: the local stack's development account #10, or a dispute desk's key), the
// admin resolve route sends `resolve` from it; otherwise disputes are resolved by the arbiter's own wallet or a
// proposal, and the route answers 503 ARBITER_NOT_CONFIGURED.
import { agentHubChain } from "@agenthub/common";
import { RunEscrowAbi } from "@agenthub/common/generated/abis";
import type { RelayResult } from "@agenthub/relayer/protocol";
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  custom,
  type Hex,
  type PublicClient,
} from "viem";
import { nonceManager, privateKeyToAccount } from "viem/accounts";
import { apiError } from "../errors.ts";

export class Arbiter {
  readonly address: Address;
  private readonly wallet;

  constructor(
    private readonly chain: PublicClient,
    key: Hex,
    private readonly escrow: Address,
    private readonly timeoutMs: number,
  ) {
    const account = privateKeyToAccount(key, { nonceManager });
    this.address = account.address;
    // Same transport (and RPC fallbacks) as the API's reads.
    this.wallet = createWalletClient({
      account,
      chain: chain.chain ?? agentHubChain(""),
      transport: custom({ request: (args) => chain.request(args as never) }),
    });
  }

  /**
   * Simulates, sends and waits (bounded) for `resolve(runId, forAgent)`; a revert becomes a 409 with the
   * contract's error name (RunEscrowInvalidState: the run is not disputed any more; RunEscrowUnauthorized: this key
   * lost ARBITER_ROLE).
   */
  async resolve(runId: bigint, forAgent: boolean): Promise<RelayResult> {
    const { request } = await this.chain
      .simulateContract({
        account: this.wallet.account,
        address: this.escrow,
        abi: RunEscrowAbi,
        functionName: "resolve",
        args: [runId, forAgent],
      })
      .catch((error: unknown) => {
        throw this.refusal(error);
      });
    const txHash = await this.wallet.writeContract(request);
    const receipt = await this.chain.waitForTransactionReceipt({ hash: txHash, timeout: this.timeoutMs });
    if (receipt.status !== "success") throw apiError("TX_REVERTED", `resolve reverted in ${txHash}`);
    return {
      id: txHash,
      txHash,
      blockNumber: receipt.blockNumber.toString(),
      gasUsed: receipt.gasUsed.toString(),
      logs: receipt.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data, logIndex: l.logIndex })),
    };
  }

  /** A simulated revert as the API's error (a 409 or 503 with a stable code), or the error itself. */
  private refusal(error: unknown): unknown {
    const revert =
      error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : undefined;
    const name = revert instanceof ContractFunctionRevertedError ? revert.data?.errorName : undefined;
    if (name === "RunEscrowInvalidState") return apiError("INVALID_RUN_STATE", "the run is not disputed");
    if (name === "RunEscrowUnauthorized") {
      return apiError("ARBITER_NOT_CONFIGURED", `${this.address} does not hold ARBITER_ROLE on RunEscrow`);
    }
    if (name === "EnforcedPause") return apiError("CONTRACT_PAUSED", "the contract is paused; try again later");
    return error;
  }
}
