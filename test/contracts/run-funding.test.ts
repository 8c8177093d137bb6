import assert from "node:assert/strict";
import { permitTypedData, runFundingNonce } from "@agenthub/sdk/protocol";
import { network } from "hardhat";
import { describe, it } from "mocha";
import { getAddress, maxUint256, parseSignature } from "viem";
import { CHAIN_ID, type Core, DAY, deployCore, feeOf, IPFS_URI, signFunding, wait } from "./fixtures.ts";

const REWARD = 10_000_000n;
const FEE = feeOf(REWARD);

/**
 * Run funding custody (issue 12 item 8): the relayer's key moves no poster's USDC on its own. The poster's allowance
 * and permits are spent only by the poster's own createRun / createRunWithPermit (the caller is the poster); relayed
 * funding takes the poster's EIP-3009 authorization whose nonce binds the run's terms, so the relayer can only create
 * exactly the run the poster signed, once.
 */
describe("RunEscrow funding: the poster's own call or its terms-bound authorization", () => {
  const setup = async () => {
    const { networkHelpers } = await network.create();
    const core = await networkHelpers.loadFixture(deployCore);
    const { usdc, publicClient, wallets } = core;
    await wait(publicClient, usdc.write.mint([wallets.poster.account.address, 100n * REWARD]));
    const now = (await publicClient.getBlock()).timestamp;
    const terms = { reward: REWARD, deadline: now + 3n * DAY, maxRevisions: 2, cover: 0n, metadataUri: IPFS_URI };
    return { core, networkHelpers, terms, now };
  };

  const balances = async (core: Core) => ({
    poster: await core.usdc.read.balanceOf([core.wallets.poster.account.address]),
    relayer: await core.usdc.read.balanceOf([core.wallets.relayer.account.address]),
    escrow: await core.usdc.read.balanceOf([core.escrow.address]),
    owed: await core.escrow.read.totalOwed(),
    runs: await core.escrow.read.runCount(),
  });

  it("fundingNonce is the SDK's runFundingNonce of the same terms", async () => {
    const { core, terms } = await setup();
    const poster = core.wallets.poster.account.address;
    const args = [poster, terms.reward, terms.deadline, terms.maxRevisions, terms.cover, terms.metadataUri] as const;
    assert.equal(await core.escrow.read.fundingNonce(args), runFundingNonce(core.escrow.address, { poster, ...terms }));
    const other = await core.escrow.read.fundingNonce([poster, terms.reward, terms.deadline, 1, 0n, terms.metadataUri]);
    assert.notEqual(other, runFundingNonce(core.escrow.address, { poster, ...terms }));
  });

  it("anyone submits the poster's authorization: exactly the signed run, reward + fee from the poster, once", async () => {
    const { core, terms, now } = await setup();
    const { escrow, usdc, viem, wallets } = core;
    const poster = wallets.poster;
    const auth = await signFunding(core, poster, terms);
    const before = await balances(core);
    const args = [
      poster.account.address,
      terms.reward,
      terms.deadline,
      terms.maxRevisions,
      terms.cover,
      terms.metadataUri,
      auth.validBefore,
      auth.signature,
    ] as const;
    const tx = escrow.write.createRunWithAuthorization(args, { account: wallets.relayer.account });
    await viem.assertions.emitWithArgs(tx, escrow, "RunCreated", [
      1n,
      getAddress(poster.account.address),
      REWARD,
      terms.deadline,
      2,
      IPFS_URI,
    ]);
    const after = await balances(core);
    assert.equal(after.poster, before.poster - REWARD - FEE);
    assert.equal(after.escrow, before.escrow + REWARD + FEE);
    assert.equal(after.owed, after.escrow);
    assert.equal(after.relayer, before.relayer);
    const run = await escrow.read.getRun([1n]);
    assert.equal(run.poster, getAddress(poster.account.address));
    assert.equal(run.deadline, terms.deadline);
    assert.equal(run.maxRevisions, 2);
    // The token spent the nonce: the same authorization never funds a second run.
    const nonce = runFundingNonce(escrow.address, { poster: poster.account.address, ...terms });
    assert.equal(await usdc.read.authorizationState([poster.account.address, nonce]), true);
    await viem.assertions.revertWithCustomError(
      escrow.write.createRunWithAuthorization(args, { account: wallets.other.account }),
      usdc,
      "ERC3009UsedAuthorization",
    );
    assert.deepEqual(await balances(core), after);
    // Expired authorization: refused by the token on chain time.
    const late = await signFunding(core, poster, { ...terms, metadataUri: `${IPFS_URI}?2` }, { validBefore: now });
    await viem.assertions.revertWithCustomError(
      escrow.write.createRunWithAuthorization(
        [poster.account.address, REWARD, terms.deadline, 2, 0n, `${IPFS_URI}?2`, late.validBefore, late.signature],
        { account: wallets.relayer.account },
      ),
      usdc,
      "ERC3009InvalidAuthorizationTime",
    );
  });

  it("a compromised relayer key cannot move a poster's USDC: allowance, permit, tampered or re-targeted authorization", async () => {
    const { core, terms, now } = await setup();
    const { escrow, usdc, viem, wallets, publicClient } = core;
    const { poster, relayer } = wallets;
    // The worst case: the poster left an infinite allowance to the escrow and signed a permit and an authorization.
    await wait(publicClient, usdc.write.approve([escrow.address, maxUint256], { account: poster.account }));
    const permit = parseSignature(
      await poster.signTypedData(
        permitTypedData({
          token: { address: usdc.address, name: "USDC", version: "2" },
          chainId: CHAIN_ID,
          owner: poster.account.address,
          spender: escrow.address,
          value: REWARD + FEE,
          nonce: await usdc.read.nonces([poster.account.address]),
          deadline: now + DAY,
        }),
      ),
    );
    const auth = await signFunding(core, poster, terms);
    const before = await balances(core);
    const as = { account: relayer.account };

    // 1. The standing allowance: createRun names no poster (the caller is the poster), so the relayer's call can
    // only pull from the relayer's own allowance (none).
    await viem.assertions.revertWithCustomErrorWithArgs(
      escrow.write.createRun([90n * REWARD, terms.deadline, 0, 0n, "ipfs://drain"], as),
      usdc,
      "ERC20InsufficientAllowance",
      [getAddress(escrow.address), 0n, 90n * REWARD + feeOf(90n * REWARD)],
    );
    // 2. The poster's permit, applied to the token by the relayer: it only adds to the allowance the poster gave the
    // escrow, which createRun never spends for anyone but its caller.
    await wait(
      publicClient,
      usdc.write.permit(
        [poster.account.address, escrow.address, REWARD + FEE, now + DAY, Number(permit.v), permit.r, permit.s],
        as,
      ),
    );
    await viem.assertions.revertWithCustomError(
      escrow.write.createRun([REWARD, now + 60n, 0, 0n, "ipfs://other-work"], as),
      usdc,
      "ERC20InsufficientAllowance",
    );
    // 3. The authorization with any term changed (reward, deadline, revisions, request document, cover), or for another
    // poster: the escrow recomputes the nonce from the terms it is given, so the token's signature check fails.
    const tampered = [
      { ...terms, reward: 90n * REWARD },
      { ...terms, deadline: now + 120n },
      { ...terms, maxRevisions: 0 },
      { ...terms, metadataUri: "ipfs://other-work" },
      { ...terms, cover: REWARD },
    ];
    for (const t of tampered) {
      await viem.assertions.revertWithCustomError(
        escrow.write.createRunWithAuthorization(
          [
            poster.account.address,
            t.reward,
            t.deadline,
            t.maxRevisions,
            t.cover,
            t.metadataUri,
            auth.validBefore,
            auth.signature,
          ],
          as,
        ),
        usdc,
        "ERC3009InvalidSignature",
      );
    }
    await viem.assertions.revertWithCustomError(
      escrow.write.createRunWithAuthorization(
        [
          wallets.poster2.account.address,
          terms.reward,
          terms.deadline,
          terms.maxRevisions,
          terms.cover,
          terms.metadataUri,
          auth.validBefore,
          auth.signature,
        ],
        as,
      ),
      usdc,
      "ERC3009InvalidSignature",
    );
    // 4. Straight to the token (to move it anywhere but the escrow's run): only the payee, the escrow, may submit a
    // receive authorization, and the signature names the escrow as the payee.
    const poster1Nonce = runFundingNonce(escrow.address, { poster: poster.account.address, ...terms });
    await viem.assertions.revertWithCustomError(
      usdc.write.receiveWithAuthorization(
        [poster.account.address, escrow.address, REWARD + FEE, 0n, auth.validBefore, poster1Nonce, auth.signature],
        as,
      ),
      usdc,
      "ERC20InvalidReceiver",
    );
    // Nothing moved, to the base unit.
    assert.deepEqual(await balances(core), before);

    // What the poster signed still works, exactly once.
    await wait(
      publicClient,
      escrow.write.createRunWithAuthorization(
        [
          poster.account.address,
          terms.reward,
          terms.deadline,
          terms.maxRevisions,
          terms.cover,
          terms.metadataUri,
          auth.validBefore,
          auth.signature,
        ],
        as,
      ),
    );
    const after = await balances(core);
    assert.equal(after.poster, before.poster - REWARD - FEE);
    assert.equal(after.escrow, before.escrow + REWARD + FEE);
    assert.equal(after.relayer, before.relayer);
    assert.equal(after.runs, before.runs + 1n);
  });

  it("a fee rate changed by governance after signing voids the authorization (the poster never pays a fee it did not sign)", async () => {
    const { core, terms } = await setup();
    const { escrow, usdc, viem, wallets, publicClient } = core;
    const auth = await signFunding(core, wallets.poster, terms);
    await wait(publicClient, escrow.write.setFeeBps([800n], { account: wallets.admin.account }));
    const before = await balances(core);
    await viem.assertions.revertWithCustomError(
      escrow.write.createRunWithAuthorization(
        [
          wallets.poster.account.address,
          terms.reward,
          terms.deadline,
          terms.maxRevisions,
          terms.cover,
          terms.metadataUri,
          auth.validBefore,
          auth.signature,
        ],
        { account: wallets.relayer.account },
      ),
      usdc,
      "ERC3009InvalidSignature",
    );
    assert.deepEqual(await balances(core), before);
  });
});
