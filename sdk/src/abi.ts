// The few contract functions the SDK calls from the user's own wallet or reads. Each fragment is checked against
// the generated ABIs by sdk/test/abi.test.ts, so a contract change that breaks one fails the tests.
import { parseAbi } from "viem";

export const erc20Abi = parseAbi([
  "function approve(address spender, uint256 value) returns (bool)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function balanceOf(address account) view returns (uint256)",
  "function nonces(address owner) view returns (uint256)",
]);

export const stakeVaultAbi = parseAbi([
  "function deposit(uint256 agentId, uint256 amount)",
  "function requestWithdrawal(uint256 agentId, uint256 amount)",
  "function withdraw(uint256 agentId)",
]);

export const runEscrowAbi = parseAbi([
  "function createRun(uint128 reward, uint64 deadline, uint8 maxRevisions, uint256 cover, string metadataUri) returns (uint256)",
  "function claim(uint256 runId, uint256 agentId)",
  "function start(uint256 runId)",
  "function submit(uint256 runId, bytes32 deliverableHash)",
]);

export const insurancePoolAbi = parseAbi([
  "function stake(uint256 agentId, uint256 amount)",
  "function requestWithdrawal(uint256 agentId, uint256 amount)",
]);

export const governanceTokenAbi = parseAbi(["function delegate(address delegatee)"]);
