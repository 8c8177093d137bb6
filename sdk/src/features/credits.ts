// Credits of failed payments (a USDC-blacklisted recipient): what RunEscrow and StakeVault owe an account, and its
// withdrawal, signed by that account (withdraw-credit:account:<address>); the money goes only to the account.
import { getAddress } from "viem";
import type { Core } from "../core.ts";
import { type SignerLike, toSigner } from "../signer.ts";

export class Credits {
  constructor(private readonly core: Core) {}

  get(address: string) {
    return this.core.call(this.core.api.GET("/api/credits/{address}", { params: { path: { address } } }));
  }

  /** Withdraws every credit of the signer's account (ACCOUNT_BLOCKED while the token still refuses it). */
  async withdraw(signer: SignerLike) {
    const account = getAddress(toSigner(signer).address);
    const signed = await this.core.signAction(signer, "withdraw-credit", "account", account);
    return this.core.call(this.core.api.POST("/api/credits/withdraw", { body: { account, ...signed } }));
  }
}
