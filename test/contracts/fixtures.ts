import {
  type ClaimTerms,
  consentNonceKey,
  permitTypedData,
  type RunConsentAction,
  type RunTerms,
  runConsentTypedData,
  runFundingTypedData,
} from "@agenthub/sdk/protocol";
import type { NetworkConnection } from "hardhat/types/network";
import { type Address, type Hex, keccak256, parseSignature, serializeSignature, toHex, zeroHash } from "viem";

/** 20 USDC (6 decimals): the vault's MIN_STAKE. */
export const MIN_STAKE = 20_000_000n;
/** A realistic 66-character registration file URI (CIDv1 raw sha2-256, base32). */
export const IPFS_URI = "ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy";
export const CHAIN_ID = 84532;
export const DAY = 24n * 60n * 60n;

/** secp256k1 group order, used to build high-s twins of signatures. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * Deploys the core contract set (TestUSDC, AgentIdentity, StakeVault, RunEscrow) wired as the deploy modules
 * wire it: the escrow is the vault's run escrow and holds ESCROW_ROLE on it, the relayer holds RELAYER_ROLE everywhere. `admin` stands
 * for governance (DEFAULT_ADMIN_ROLE) and also gets ARBITER_ROLE, SLASHER_ROLE and PAUSER_ROLE, so unit tests
 * can resolve, slash and pause with one account (the real deployment gives those roles to the relayer and the
 * emergency Safe; see ignition/modules and docs/decisions.md).
 * Usable directly as a `networkHelpers.loadFixture` fixture.
 */
export async function deployCore(connection: NetworkConnection) {
  return deployCoreWith(connection, "TestUSDC");
}

/** Same as {@link deployCore} with USDC replaced by the blacklisting mock (Circle's USDC blacklist). */
export async function deployCoreWithBlacklist(connection: NetworkConnection) {
  return deployCoreWith(connection, "MockBlacklistUSDC");
}

async function deployCoreWith(connection: NetworkConnection, usdcContract: "TestUSDC" | "MockBlacklistUSDC") {
  const { viem } = connection;
  const publicClient = await viem.getPublicClient();
  const [admin, relayer, treasury, poster, agentOwner, other, poster2, agentOwner2] = await viem.getWalletClients();
  if (!admin || !relayer || !treasury || !poster || !agentOwner || !other || !poster2 || !agentOwner2) {
    throw new Error("need at least 8 accounts");
  }

  const usdc = await viem.deployContract(usdcContract as "TestUSDC");
  const identity = await viem.deployContract("AgentIdentity", [admin.account.address, relayer.account.address]);
  const vault = await viem.deployContract("StakeVault", [
    usdc.address,
    identity.address,
    admin.account.address,
    treasury.account.address,
  ]);
  const escrow = await viem.deployContract("RunEscrow", [
    usdc.address,
    vault.address,
    identity.address,
    admin.account.address,
    relayer.account.address,
    treasury.account.address,
  ]);

  const roles = {
    SLASHER: await vault.read.SLASHER_ROLE(),
    ESCROW: await vault.read.ESCROW_ROLE(),
    VAULT_RELAYER: await vault.read.RELAYER_ROLE(),
    IDENTITY_RELAYER: await identity.read.RELAYER_ROLE(),
    ESCROW_RELAYER: await escrow.read.RELAYER_ROLE(),
    ARBITER: await escrow.read.ARBITER_ROLE(),
    ADMIN: await escrow.read.DEFAULT_ADMIN_ROLE(),
    PAUSER: await escrow.read.PAUSER_ROLE(),
  };
  await wait(publicClient, vault.write.setRunEscrow([escrow.address], { account: admin.account }));
  await wait(publicClient, vault.write.grantRole([roles.ESCROW, escrow.address], { account: admin.account }));
  await wait(publicClient, vault.write.grantRole([roles.SLASHER, admin.account.address], { account: admin.account }));
  await wait(publicClient, escrow.write.grantRole([roles.ARBITER, admin.account.address], { account: admin.account }));
  await wait(publicClient, vault.write.grantRole([roles.PAUSER, admin.account.address], { account: admin.account }));
  await wait(publicClient, escrow.write.grantRole([roles.PAUSER, admin.account.address], { account: admin.account }));
  await wait(publicClient, identity.write.grantRole([roles.PAUSER, admin.account.address], { account: admin.account }));
  await wait(
    publicClient,
    vault.write.grantRole([roles.VAULT_RELAYER, relayer.account.address], { account: admin.account }),
  );

  return {
    viem,
    publicClient,
    usdc,
    identity,
    vault,
    escrow,
    roles,
    wallets: { admin, relayer, treasury, poster, agentOwner, other, poster2, agentOwner2 },
  };
}

export type Core = Awaited<ReturnType<typeof deployCore>>;

/** Waits for a transaction and returns its receipt (throws if it reverted). */
export async function wait(
  publicClient: { waitForTransactionReceipt: (args: { hash: Hex }) => Promise<{ status: string; gasUsed: bigint }> },
  tx: Promise<Hex> | Hex,
) {
  const hash = await tx;
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
  return receipt;
}

/** Mints an agent identity (as the relayer) to `to`; returns its id. */
export async function mintAgent(core: Core, to: Address, uri: string = IPFS_URI): Promise<bigint> {
  const { identity, publicClient, wallets } = core;
  await wait(publicClient, identity.write.mint([to, uri], { account: wallets.relayer.account }));
  return identity.read.totalAgents();
}

/** Mints `amount` USDC to `owner` and stakes it into `agentId`. */
export async function stakeAgent(core: Core, agentId: bigint, owner: Address, amount: bigint = MIN_STAKE) {
  const { usdc, vault, publicClient } = core;
  await wait(publicClient, usdc.write.mint([owner, amount], { account: owner }));
  await wait(publicClient, usdc.write.approve([vault.address, amount], { account: owner }));
  await wait(publicClient, vault.write.deposit([agentId, amount], { account: owner }));
}

/** reward * 5% (the escrow's fee rate at deployment), rounded up to the next base unit (as RunEscrow). */
export const feeOf = (reward: bigint, bps = 500n) => (reward * bps + 9_999n) / 10_000n;

/** Mints reward + fee to `poster`, approves the escrow and creates a run; returns the run id. */
export async function createFundedRun(
  core: Core,
  poster: Address,
  reward: bigint,
  opts: { deadline?: bigint; maxRevisions?: number; uri?: string; cover?: bigint } = {},
): Promise<bigint> {
  const { usdc, escrow, publicClient } = core;
  const amount = reward + feeOf(reward);
  const now = (await publicClient.getBlock()).timestamp;
  await wait(publicClient, usdc.write.mint([poster, amount], { account: poster }));
  await wait(publicClient, usdc.write.approve([escrow.address, amount], { account: poster }));
  await wait(
    publicClient,
    escrow.write.createRun(
      [reward, opts.deadline ?? now + 30n * DAY, opts.maxRevisions ?? 1, opts.cover ?? 0n, opts.uri ?? IPFS_URI],
      {
        account: poster,
      },
    ),
  );
  return escrow.read.runCount();
}

/** The high-s twin of a 65-byte ECDSA signature: same signer under ecrecover, rejected by OpenZeppelin ECDSA. */
export function highSTwin(signature: Hex): Hex {
  const { r, s, yParity } = parseSignature(signature);
  const twinS = SECP256K1_N - BigInt(s);
  return serializeSignature({ r, s: toHex(twinS, { size: 32 }), yParity: yParity === 0 ? 1 : 0 });
}

/**
 * Raw `ecrecover` (the 0x01 precompile, which accepts high-s signatures) of a 65-byte signature: proves that a
 * high-s twin really is a valid signature by the same key, so rejecting it is OpenZeppelin ECDSA's doing.
 */
export async function rawEcrecover(
  publicClient: { call: (args: { to: Address; data: Hex }) => Promise<{ data?: Hex }> },
  digest: Hex,
  signature: Hex,
): Promise<Address> {
  const { r, s, v, yParity } = parseSignature(signature);
  const vv = v ?? BigInt(yParity + 27);
  const data = `0x${digest.slice(2)}${toHex(vv, { size: 32 }).slice(2)}${r.slice(2)}${s.slice(2)}` as Hex;
  const { data: out } = await publicClient.call({ to: "0x0000000000000000000000000000000000000001", data });
  return `0x${(out ?? "0x").slice(-40)}` as Address;
}

/** A deterministic 32-byte value from a label (nonces, hashes). */
export const bytes32 = (label: string): Hex => keccak256(toHex(label));

/** Small seeded PRNG (mulberry32) so fuzz failures reproduce from the printed seed. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => {
      const x = xs[Math.floor(next() * xs.length)];
      if (x === undefined) throw new Error("pick from empty list");
      return x;
    },
    bigint: (lo: bigint, hi: bigint) => lo + BigInt(Math.floor(next() * Number(hi - lo + 1n))),
  };
}

/** A party's consent to a run action, as RunEscrow's `...BySig` functions take it. */
export interface Consent {
  signer: Address;
  nonce: bigint;
  deadline: bigint;
  signature: Hex;
}

/**
 * `signer` signs its EIP-712 consent to `action` on `runId`. Unless overridden, the agent and deliverable are the
 * run's current ones (for claim / submit pass the new ones), the nonce is the signer's next one under the run's
 * key and the deadline is an hour of chain time away. `escrow` / `chainId` override the domain (wrong-domain tests).
 */
export async function signConsent(
  core: Core,
  signer: { account: { address: Address }; signTypedData: (args: never) => Promise<Hex> },
  action: RunConsentAction,
  runId: bigint,
  opts: {
    agentId?: bigint;
    deliverableHash?: Hex;
    nonce?: bigint;
    deadline?: bigint;
    escrow?: Address;
    chainId?: number;
    /** claim: the terms signed (default: the run's as the escrow holds them, cover included). */
    terms?: ClaimTerms;
  } = {},
): Promise<Consent> {
  const { escrow, publicClient } = core;
  const run = await escrow.read.getRun([runId]);
  const address = signer.account.address;
  const nonce = opts.nonce ?? (await escrow.read.nonces([address, consentNonceKey(runId)]));
  const deadline = opts.deadline ?? (await publicClient.getBlock()).timestamp + 3600n;
  const typed = runConsentTypedData({
    escrow: opts.escrow ?? escrow.address,
    chainId: opts.chainId ?? CHAIN_ID,
    action,
    runId,
    agentId: opts.agentId ?? run.agentId,
    deliverableHash: opts.deliverableHash ?? (run.deliverableHash === zeroHash ? zeroHash : run.deliverableHash),
    terms: action === "claim" ? (opts.terms ?? (await claimTermsOf(core, runId))) : undefined,
    nonce,
    deadline,
  });
  const signature = await signer.signTypedData({ account: signer.account, ...typed } as never);
  return { signer: address, nonce, deadline, signature };
}

/** The terms an agent's claim consent carries: the run's as the escrow holds them, its cover included. */
export async function claimTermsOf(core: Core, runId: bigint): Promise<ClaimTerms> {
  const run = await core.escrow.read.getRun([runId]);
  return {
    poster: run.poster,
    reward: run.reward,
    deadline: run.deadline,
    maxRevisions: BigInt(run.maxRevisions),
    cover: await core.escrow.read.coverOf([runId]),
  };
}

/** A poster's EIP-3009 authorization to fund exactly `terms` (RunEscrow.createRunWithAuthorization). */
export async function signFunding(
  core: Core,
  poster: { account: { address: Address }; signTypedData: (args: never) => Promise<Hex> },
  terms: Omit<RunTerms, "poster">,
  opts: { value?: bigint; validBefore?: bigint } = {},
): Promise<{ validBefore: bigint; signature: Hex }> {
  const { escrow, usdc, publicClient } = core;
  const validBefore = opts.validBefore ?? (await publicClient.getBlock()).timestamp + 3600n;
  const typed = runFundingTypedData({
    token: { address: usdc.address, name: "USDC", version: "2" },
    chainId: CHAIN_ID,
    escrow: escrow.address,
    terms: { ...terms, poster: poster.account.address },
    value: opts.value ?? terms.reward + feeOf(terms.reward, await escrow.read.feeBps()),
    validBefore,
  });
  const signature = await poster.signTypedData({ account: poster.account, ...typed } as never);
  return { validBefore, signature };
}

/** A wallet that signs EIP-712 data (the test wallets of hardhat-viem). */
export interface TypedDataSigner {
  account: { address: Address };
  signTypedData: (args: never) => Promise<Hex>;
}

/** An EIP-2612 permit as the `...WithPermit` functions take it: the signature and its v, r, s. */
export interface SignedPermit {
  deadline: bigint;
  signature: Hex;
  v: number;
  r: Hex;
  s: Hex;
}

/**
 * `signer` signs an EIP-2612 permit of `token` letting `spender` pull `value` (the typed data the SDK builds, so
 * contract tests, end-to-end tests and clients share one definition). The nonce is the owner's current one on the
 * token unless given; the domain is the test USDC's ("USDC", "2", this chain) unless `domain` overrides a part
 * (wrong-domain tests, tokens with another name); `owner` names an owner other than the signer (an ERC-1271 wallet
 * the signer speaks for).
 */
export async function signPermit(
  token: { address: Address; read: { nonces: (args: readonly [Address]) => Promise<bigint> } },
  signer: TypedDataSigner,
  permit: {
    spender: Address;
    value: bigint;
    deadline: bigint;
    nonce?: bigint;
    owner?: Address;
    domain?: { name?: string; version?: string; chainId?: number };
  },
): Promise<SignedPermit> {
  const owner = permit.owner ?? signer.account.address;
  const typed = permitTypedData({
    token: { address: token.address, name: permit.domain?.name ?? "USDC", version: permit.domain?.version ?? "2" },
    chainId: permit.domain?.chainId ?? CHAIN_ID,
    owner,
    spender: permit.spender,
    value: permit.value,
    nonce: permit.nonce ?? (await token.read.nonces([owner])),
    deadline: permit.deadline,
  });
  const signature = await signer.signTypedData({ account: signer.account, ...typed } as never);
  const { r, s, yParity } = parseSignature(signature);
  return { deadline: permit.deadline, signature, v: 27 + yParity, r, s };
}
