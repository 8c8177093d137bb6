// Voting power of an address and the treasury's balances, read from the contracts (delegators from the index).
import { TestUSDCAbi } from "@agenthub/common/generated/abis";
import { type Address, getAddress } from "viem";
import type { Deps } from "../../context.ts";
import { delegatorsOf } from "../../stores/governance.ts";
import { governor, token } from "./contracts.ts";

export async function votingPower(deps: Deps, who: Address) {
  const [balance, votes, delegate, nonce, delegators] = await Promise.all([
    deps.chain.readContract({ ...token(deps), functionName: "balanceOf", args: [who] }),
    deps.chain.readContract({ ...token(deps), functionName: "getVotes", args: [who] }),
    deps.chain.readContract({ ...token(deps), functionName: "delegates", args: [who] }),
    deps.chain.readContract({ ...governor(deps), functionName: "nonces", args: [who] }),
    delegatorsOf(deps, who),
  ]);
  const zero = /^0x0{40}$/i.test(delegate);
  return {
    address: who,
    balance: balance.toString(),
    votingPower: votes.toString(),
    delegatedTo: zero ? null : delegate.toLowerCase() === who.toLowerCase() ? ("self" as const) : getAddress(delegate),
    delegatedFrom: delegators.map((a) => getAddress(a)),
    ballotNonce: nonce.toString(),
  };
}

/** The timelock's balances: USDC, the governance token (under its symbol) and ETH, in base units. */
export async function treasury(deps: Deps) {
  const timelock = deps.deployments.contracts.AgentHubTimelock.address;
  const [symbol, usdc, gov, eth] = await Promise.all([
    deps.constants.tokenSymbol(),
    deps.chain.readContract({
      address: deps.deployments.usdc.address,
      abi: TestUSDCAbi,
      functionName: "balanceOf",
      args: [timelock],
    }),
    deps.chain.readContract({ ...token(deps), functionName: "balanceOf", args: [timelock] }),
    deps.chain.getBalance({ address: timelock }),
  ]);
  return { address: timelock, balances: { USDC: usdc.toString(), [symbol]: gov.toString(), ETH: eth.toString() } };
}
