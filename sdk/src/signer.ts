// Signers are viem accounts: a private-key account (privateKeyToAccount), a JSON-RPC or browser wallet (a
// WalletClient with an account), or a smart account (viem/account-abstraction; ERC-1271/6492 signatures, which the
// API verifies). The SDK never sees a raw key.
import type { Account, Hex, WalletClient } from "viem";
import type { TypedDataSigner } from "./protocol/index.ts";

export type { TypedDataSigner };

/** What every signed flow needs: EIP-191 messages (SIWE, claims) and EIP-712 typed data (permits, payments). */
export interface Signer extends TypedDataSigner {
  signMessage(parameters: { message: string }): Promise<Hex>;
}

/** A viem local or smart account, or a wallet client carrying its account. */
export type SignerLike = Signer | WalletClient;

function isWalletClient(x: SignerLike): x is WalletClient {
  return typeof (x as WalletClient).request === "function" && "transport" in x;
}

/** Adapts a viem account or wallet client to the SDK's Signer. */
export function toSigner(source: SignerLike): Signer {
  if (!isWalletClient(source)) return source;
  const account: Account | undefined = source.account;
  if (!account) throw new Error("the wallet client has no account: pass createWalletClient({ account, ... })");
  return {
    address: account.address,
    signMessage: ({ message }) => source.signMessage({ account, message }),
    signTypedData: (parameters) => source.signTypedData({ account, ...(parameters as object) } as never),
  };
}
