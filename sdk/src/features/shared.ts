// Helpers several features share: EIP-2612 permits for a platform contract, and sending a transaction from the
// caller's own wallet (for flows that post a txHash instead of a permit).
import type {
  Abi,
  Account,
  Address,
  Chain,
  ContractFunctionArgs,
  ContractFunctionName,
  Hex,
  Transport,
  WalletClient,
} from "viem";
import { erc20Abi } from "../abi.ts";
import type { Core } from "../core.ts";
import { AgentHubError } from "../errors.ts";
import { permitTypedData } from "../protocol/index.ts";
import { type SignerLike, toSigner } from "../signer.ts";

/** A viem wallet client with an account: the caller's own wallet for transactions it sends itself. */
export type OwnWallet = WalletClient<Transport, Chain | undefined, Account>;

/** Seconds a permit stays valid from the current chain time. */
export const PERMIT_TTL_SECONDS = 3600n;

/** The address of a deployed platform contract (GET /api/config -> contracts). */
export async function contractAddress(core: Core, name: string): Promise<Address> {
  const address = (await core.config()).contracts[name];
  if (!address) throw AgentHubError.client("UNKNOWN_CONTRACT", `the deployment has no ${name}`);
  return address as Address;
}

/** Signs an EIP-2612 permit for `spender` over exactly `value` USDC at the owner's current nonce. */
export async function signUsdcPermit(core: Core, signerLike: SignerLike, spender: Address, value: bigint) {
  const signer = toSigner(signerLike);
  const config = await core.config();
  const chain = await core.chain();
  const usdc = config.usdc.address as Address;
  const [nonce, now] = await Promise.all([
    chain.readContract({ address: usdc, abi: erc20Abi, functionName: "nonces", args: [signer.address] }),
    core.chainTime(),
  ]);
  const deadline = now + PERMIT_TTL_SECONDS;
  core.progress("sign", `signing a permit: ${spender} may take ${value} USDC base units from ${signer.address}`);
  const signature = await signer.signTypedData(
    permitTypedData({
      token: { address: usdc, name: config.usdc.name, version: config.usdc.version },
      chainId: config.chainId,
      owner: signer.address,
      spender,
      value,
      nonce,
      deadline,
    }),
  );
  return { owner: signer.address, deadline: Number(deadline), signature };
}

/** Sends a contract call from the caller's wallet and waits for its receipt. */
export async function sendOwn<
  const abi extends Abi,
  name extends ContractFunctionName<abi, "nonpayable" | "payable">,
  args extends ContractFunctionArgs<abi, "nonpayable" | "payable", name>,
>(
  core: Core,
  wallet: OwnWallet,
  call: { address: Address; abi: abi; functionName: name; args: args },
  what: string,
): Promise<Hex> {
  core.progress("sign", `sending ${what} from ${wallet.account.address}`);
  const hash = await wallet.writeContract({
    ...(call as object),
    account: wallet.account,
    chain: wallet.chain ?? null,
  } as never);
  await core.waitForReceipt(hash, what);
  return hash;
}

/** USDC.approve(spender, value) from the caller's wallet. */
export async function approveUsdc(core: Core, wallet: OwnWallet, spender: Address, value: bigint): Promise<Hex> {
  const usdc = (await core.config()).usdc.address as Address;
  return sendOwn(
    core,
    wallet,
    { address: usdc, abi: erc20Abi, functionName: "approve", args: [spender, value] },
    "USDC approval",
  );
}

/** USDC balance of an address, in base units (reads the chain). */
export async function usdcBalance(core: Core, address: Address): Promise<bigint> {
  const usdc = (await core.config()).usdc.address as Address;
  return (await core.chain()).readContract({
    address: usdc,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [address],
  });
}
