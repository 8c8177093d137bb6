// Which code an account runs: the canonical ERC-4337 accounts are an EOA delegating to Simple7702Account (EIP-7702)
// and a SimpleAccount proxy of the canonical SimpleAccountFactory whose ERC-1967 implementation is still the
// factory's. The paymaster sponsors only those (its call policy reads `execute` / `executeBatch` call data, which any
// other code could ignore and burn the sponsored gas: a custom contract holding the agent's token, an EOA delegating
// elsewhere, an upgraded SimpleAccount), and signed actions accept a SimpleAccount's owner signing for it (the
// canonical SimpleAccount has no ERC-1271).
import {
  type Address,
  getAddress,
  type Hex,
  isAddressEqual,
  keccak256,
  type PublicClient,
  parseAbi,
  zeroAddress,
} from "viem";
import { PolicyRefusal } from "./calls.ts";
import { isEip7702Marker, type UserOperation } from "./user-operation.ts";

const DELEGATION_PREFIX = "0xef0100";
/** ERC-1967: bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1). */
export const ERC1967_IMPLEMENTATION_SLOT: Hex = "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc";
const factoryAbi = parseAbi(["function accountImplementation() view returns (address)"]);
const ownerAbi = parseAbi(["function owner() view returns (address)"]);

/** `0xef0100 ++ delegate` as an EOA's code under EIP-7702, or undefined for any other code. */
export function delegateOf(code: Hex | undefined): Address | undefined {
  if (code?.length !== 48 || !code.toLowerCase().startsWith(DELEGATION_PREFIX)) return undefined;
  return getAddress(`0x${code.slice(8)}`);
}

/**
 * The runtime code of the ERC1967Proxy a SimpleAccountFactory deploys, cut out of the factory's own runtime code:
 * `createAccount` embeds the proxy's creation code, which ends with the proxy's runtime, i.e. the last contract body
 * (from its `6080604052` prologue to its CBOR metadata, `...64736f6c6343<version>0033`) before the factory's own
 * metadata. Undefined when the code does not have that shape (another factory build).
 */
export function proxyRuntimeOf(factoryCode: Hex): Hex | undefined {
  const code = factoryCode.toLowerCase().slice(2);
  const metadataEnd = (from: number) => {
    const at = code.indexOf("64736f6c6343", from);
    return at < 0 ? -1 : at + 22; // "solc" + 3-byte version + 0x0033
  };
  const ends: number[] = [];
  for (let end = metadataEnd(0); end > 0; end = metadataEnd(end)) ends.push(end);
  if (ends.length < 2) return undefined;
  const runtimeEnd = ends[ends.length - 2]!;
  const start = code.lastIndexOf("6080604052", runtimeEnd);
  if (start < 0 || start % 2 !== 0) return undefined;
  const runtime = code.slice(start, runtimeEnd);
  // The proxy reads the ERC-1967 implementation slot (and delegates to what it holds).
  return runtime.includes(ERC1967_IMPLEMENTATION_SLOT.slice(2)) ? `0x${runtime}` : undefined;
}

export interface CanonicalAccounts {
  simple7702Account: Address;
  simpleAccountFactory: Address;
}

/** The factory's facts, immutable on chain: read once per process. */
interface FactoryFacts {
  implementation: Address;
  proxyCodeHash: Hex | undefined;
}

export class AccountCode {
  private factory: Promise<FactoryFacts> | undefined;

  constructor(
    private readonly chain: PublicClient,
    private readonly accounts: CanonicalAccounts,
  ) {}

  /**
   * Refuses (ACCOUNT_NOT_SUPPORTED) a sender that will not run canonical account code during the operation; returns
   * the EIP-7702 delegate VerifyingPaymaster will read from the sender's code (zero for a SimpleAccount), which the
   * signature binds.
   */
  async check(op: UserOperation): Promise<Address> {
    const { simple7702Account } = this.accounts;
    const refuse = (why: string) =>
      new PolicyRefusal(
        "ACCOUNT_NOT_SUPPORTED",
        `${op.sender} ${why}: only EOAs delegating to Simple7702Account (${simple7702Account}) and SimpleAccounts of ` +
          `the canonical factory (${this.accounts.simpleAccountFactory}) are sponsored`,
      );
    // The bundle's authorization list applies before validation: the operation runs what it names.
    if (op.eip7702Auth) {
      if (!isAddressEqual(op.eip7702Auth.address, simple7702Account)) {
        throw refuse(`carries an EIP-7702 authorization to ${op.eip7702Auth.address}`);
      }
      return simple7702Account;
    }
    const code = await this.chain.getCode({ address: op.sender });
    const isMarker = isEip7702Marker(op.factory);
    if (op.factory && !isMarker) {
      // A deployment: checkInitCode allowed only SimpleAccountFactory.createAccount, and the EntryPoint requires the
      // init code to create the sender itself (AA14), so the sender becomes a canonical proxy.
      if (code && code !== "0x") throw refuse("already has code but the operation deploys an account");
      return zeroAddress;
    }
    const delegate = delegateOf(code);
    if (delegate) {
      if (!isAddressEqual(delegate, simple7702Account)) throw refuse(`delegates to ${delegate} (EIP-7702)`);
      return delegate;
    }
    if (isMarker) throw refuse("is not an EIP-7702 delegated EOA and the operation carries no authorization");
    if (!code || code === "0x") throw refuse("has no code and the operation neither deploys nor delegates it");
    const problem = await this.simpleAccountProblem(op.sender, code);
    if (problem) throw refuse(problem);
    return zeroAddress;
  }

  /**
   * The owner of `account` when it is a canonical SimpleAccount (the key its UserOperations are signed with), else
   * undefined: what signs for it, since the canonical SimpleAccount has no ERC-1271.
   */
  async simpleAccountOwner(account: Address): Promise<Address | undefined> {
    const code = await this.chain.getCode({ address: account });
    if (!code || code === "0x" || (await this.simpleAccountProblem(account, code))) return undefined;
    return this.chain.readContract({ address: account, abi: ownerAbi, functionName: "owner" });
  }

  /** Why `code` at `account` is not a canonical SimpleAccount proxy, or undefined when it is. */
  private async simpleAccountProblem(account: Address, code: Hex): Promise<string | undefined> {
    const factory = await this.factoryFacts();
    if (!factory.proxyCodeHash || keccak256(code) !== factory.proxyCodeHash) {
      return "runs code of its own (not a SimpleAccount proxy of the canonical factory)";
    }
    const slot = await this.chain.getStorageAt({ address: account, slot: ERC1967_IMPLEMENTATION_SLOT });
    const implementation = slot ? getAddress(`0x${slot.slice(-40)}`) : zeroAddress;
    if (!isAddressEqual(implementation, factory.implementation))
      return `is a SimpleAccount upgraded to ${implementation}`;
    return undefined;
  }

  private factoryFacts(): Promise<FactoryFacts> {
    if (!this.factory) {
      const address = this.accounts.simpleAccountFactory;
      const facts = Promise.all([
        this.chain.readContract({ address, abi: factoryAbi, functionName: "accountImplementation" }),
        this.chain.getCode({ address }),
      ]).then(([implementation, code]) => {
        const runtime = code ? proxyRuntimeOf(code) : undefined;
        return { implementation, proxyCodeHash: runtime ? keccak256(runtime) : undefined };
      });
      // A failed read is retried by the next request instead of being cached.
      facts.catch(() => {
        if (this.factory === facts) this.factory = undefined;
      });
      this.factory = facts;
    }
    return this.factory;
  }
}
