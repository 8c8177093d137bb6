// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IStakeLocks, IStakeVault} from "./IStakeVault.sol";

/// @title AgentHub run (bounty) escrow
/// @notice Holds each run's reward plus the platform fee (5% unless governance changed it, rounded up) from
/// funding until it is paid, refunded or kept. Kept fees accrue here until {sweepFees} sends them to the treasury in one transfer; a payment that
/// fails (e.g. a USDC-blacklisted recipient) is credited for {withdrawCredit} instead of blocking the run.
/// Invariant: the escrow's USDC balance equals `totalOwed()` = held runs + accrued fees + credits.
/// @dev Poster and agent actions: the poster / the agent token's owner calls directly (an EOA, a smart account), or
/// anyone (the relayer) submits the `...BySig` twin with that party's EIP-712 consent ({Consent}, type
/// `RunConsent`), verified on chain (ECDSA or ERC-1271), single-use (keyed nonces) and dated. Funding likewise: the
/// poster calls {createRun} itself, or anyone submits {createRunWithAuthorization} with the poster's EIP-3009
/// authorization bound to the run's terms. No role acts for a poster or an owner without its consent.
interface IRunEscrow is IStakeLocks {
    enum RunState {
        None,
        Open,
        Claimed,
        InProgress,
        Submitted,
        RevisionRequested,
        Disputed,
        Completed,
        Rejected,
        Cancelled,
        TimedOut,
        /// @notice A dispute no one resolved within the dispute window ({windows}): reward and fee refunded to the poster, no slash,
        /// no failure recorded (the default of ERC-8183's expiry refund).
        DisputeExpired
    }

    /// @notice How an agent last failed a run: rejected by the poster (unverified), timed out (chain-verified) or
    /// lost a dispute (arbiter-verified).
    enum FailureKind {
        None,
        Rejected,
        TimedOut,
        DisputeLost
    }

    /// @notice A party's signed consent to one run action, submitted by someone else (ERC-2612 style). The signed
    /// struct is `RunConsent(string action,uint256 runId,uint256 agentId,bytes32 deliverableHash,RunTerms terms,
    /// uint256 nonce,uint256 deadline)` with `RunTerms(address poster,uint256 reward,uint256 deadline,
    /// uint256 maxRevisions,uint256 cover)` in the escrow's EIP-712 domain (name "AgentHub RunEscrow", version "1",
    /// this chain, this contract): `action` is the function name without `BySig` ("claim", "start", "submit",
    /// "approve", "requestRevision", "reject", "cancel", "dispute"); `agentId` and `deliverableHash` are the run's as
    /// the action will see them (the claimed agent, the submitted hash; 0 when none), so a consent never applies to
    /// another agent or deliverable than the one the signer saw. `terms` are the run's terms for a claim (poster,
    /// reward, deadline, revisions and the cover {coverOf} the agent's coverage answers for) and all zero for every
    /// other action: an agent's claim consent is void for a run with other terms. `nonce` is one of the signer's keyed nonces
    /// ({nonces}(signer, key), ERC-4337 layout: key in the high 192 bits; clients use the run id as key so
    /// actions on different runs never contend); `deadline` is a chain timestamp after which it is refused.
    struct Consent {
        address signer;
        uint256 nonce;
        uint256 deadline;
        bytes signature;
    }

    struct Run {
        address poster;
        uint64 deadline;
        uint8 maxRevisions;
        uint8 revisions;
        RunState state;
        uint128 reward;
        uint128 fee;
        uint256 agentId;
        uint64 claimedAt;
        /// @notice When the run entered its current Submitted, RevisionRequested or Disputed state (0 before the
        /// first submission): the start of the poster's the review window ({windows}), of the agent's {claimTimeout} to resubmit,
        /// or of the arbiter's the dispute window ({windows}).
        uint64 since;
        bytes32 deliverableHash;
    }

    /// @notice The run's fee is not logged (it is derived, and kept per run): {getRun}'s `fee`, the reward at the
    /// {feeBps} in force when the run was funded, rounded up; the funding transaction's USDC transfer into the escrow
    /// carries reward + fee.
    event RunCreated(
        uint256 indexed runId, address indexed poster, uint256 reward, uint64 deadline, uint8 maxRevisions, string metadataUri
    );
    /// @notice The run was funded with `amount` of cover: the agreed damages the insurance pool pays its poster if the
    /// agent fails it verifiably ({IInsurancePool-claim}). Emitted right after {RunCreated}, for covered runs only;
    /// the cover never changes afterwards.
    event RunCoverSet(uint256 indexed runId, address indexed poster, uint256 amount);
    /// @notice Runs funded from now on may have a cover of at most `bps` / 10,000 times their reward.
    event MaxCoverBpsUpdated(uint256 bps);
    event RunClaimed(uint256 indexed runId, uint256 indexed agentId);
    event RunStarted(uint256 indexed runId, uint256 indexed agentId);
    event RunSubmitted(uint256 indexed runId, uint256 indexed agentId, bytes32 deliverableHash);
    event RevisionRequested(uint256 indexed runId, uint256 indexed agentId, uint8 revisions);
    /// @notice The run is approved: `reward` is added to the agent's rewards ({rewardsOf}, paid to the agent token's
    /// owner by {payRewards}); `fee` accrued for the treasury.
    event RunCompleted(uint256 indexed runId, uint256 indexed agentId, uint256 reward, uint256 fee);
    /// @notice The agent's rewards were paid to `to`, the agent token's owner at payment time (or credited to it,
    /// see {PaymentDeferred}).
    event RewardsPaid(uint256 indexed agentId, address indexed to, uint256 amount);
    event RunRejected(uint256 indexed runId, uint256 indexed agentId);
    event RunDisputed(uint256 indexed runId, uint256 indexed agentId, address indexed by);
    /// @notice A dispute was resolved; for the poster the stake slash `slashed` went to the poster and the run reopened.
    event DisputeResolved(uint256 indexed runId, uint256 indexed agentId, bool forAgent, uint256 slashed);
    event RunCancelled(uint256 indexed runId);
    /// @notice The poster let the review window ({windows}) pass without approving, asking a revision, rejecting or disputing:
    /// `by` (anyone) released the run to the agent; a {RunCompleted} follows, exactly as for an approval.
    event RunReleasedAfterReview(uint256 indexed runId, uint256 indexed agentId, address indexed by);
    /// @notice No resolution within the dispute window ({windows}): `by` (anyone) ended the dispute by its default, `refunded`
    /// (reward + fee) to the poster; the agent is not slashed and no failure is recorded.
    event DisputeExpired(uint256 indexed runId, uint256 indexed agentId, address indexed by, uint256 refunded);
    /// @notice The poster's time to act on a submission (`review`: from then on anyone may release it to the agent)
    /// and the arbiter's time to resolve a dispute (`dispute`: from then on anyone may end it by its default).
    event WindowsUpdated(uint64 review, uint64 dispute);
    /// @notice Runs created from now on need at least `amount` base units of reward.
    event MinRewardUpdated(uint256 amount);
    event RunTimedOut(uint256 indexed runId, uint256 indexed agentId, uint256 slashed);
    event TreasuryUpdated(address treasury);
    event SlashBpsUpdated(uint256 bps);
    /// @notice Runs funded from now on pay `bps` basis points of their reward as the platform fee.
    event FeeBpsUpdated(uint256 bps);
    /// @notice The poster may slash an agent that has not (re)submitted `timeout` seconds after its claim or the
    /// last revision request.
    event ClaimTimeoutUpdated(uint64 timeout);
    /// @notice The escrow was paused by `account` (same event as OpenZeppelin's Pausable).
    event Paused(address account);
    /// @notice The pause was lifted by `account`.
    event Unpaused(address account);
    /// @notice Accrued fees sent to the treasury.
    event FeesSwept(address indexed treasury, uint256 amount);
    /// @notice A payment to `to` failed (e.g. a USDC-blacklisted address) and was credited for {withdrawCredit}.
    event PaymentDeferred(address indexed to, uint256 amount);
    /// @notice A credit was paid out to `to`.
    event CreditWithdrawn(address indexed to, uint256 amount);

    error RunEscrowUnknownRun(uint256 runId);
    error RunEscrowInvalidState(uint256 runId, RunState state);
    error RunEscrowUnauthorized(address caller);
    error RunEscrowZeroReward();
    /// @dev A new run's reward is below {minReward}.
    error RunEscrowRewardTooLow(uint256 reward, uint256 minimum);
    /// @dev The poster's the review window ({windows}) on this submission is over: only approval or the release remain.
    error RunEscrowReviewWindowOver(uint256 runId);
    /// @dev The dispute outlived the dispute window ({windows}): it ends only by its default ({expireDispute}).
    error RunEscrowDisputeWindowOver(uint256 runId);
    /// @dev A review window outside 1..30 days or a dispute window outside 3..90 days.
    error RunEscrowInvalidWindows(uint64 review, uint64 dispute);
    /// @dev A new run's cover is above {maxCoverBps} of its reward.
    error RunEscrowCoverTooHigh(uint256 cover, uint256 maximum);
    /// @dev A minimum reward above 500 USDC or not a multiple of 0.01 USDC.
    error RunEscrowInvalidMinReward(uint256 amount);
    error RunEscrowDeadlinePassed(uint256 runId);
    error RunEscrowRevisionsExhausted(uint256 runId);
    error RunEscrowRevisionsRemaining(uint256 runId);
    error RunEscrowTimeoutNotReached(uint256 runId, uint64 availableAt);
    error RunEscrowInvalidBps(uint256 bps);
    error RunEscrowInvalidFeeBps(uint256 bps);
    error RunEscrowInvalidClaimTimeout(uint64 timeout);
    error RunEscrowZeroAddress();
    /// @dev The escrow is paused (same error as OpenZeppelin's Pausable).
    error EnforcedPause();
    /// @dev The escrow is not paused.
    error ExpectedPause();
    error RunEscrowNothingToSweep();
    /// @notice None of the agents named has rewards to pay.
    error RunEscrowNothingToPay();
    /// @notice The agent already holds the maximum number of runs at once.
    error RunEscrowTooManyRuns(uint256 agentId);
    error RunEscrowNoCredit(address account);
    /// @dev A consent whose signer is not the party the action needs (the poster, or the agent token's owner).
    error RunEscrowWrongSigner(address signer);
    /// @dev A consent past its deadline.
    error RunEscrowConsentExpired(uint256 deadline);
    /// @dev A consent whose signature is not the signer's for this action, run, agent, deliverable, nonce, deadline,
    /// chain and escrow.
    error RunEscrowInvalidConsent(address signer);

    /// @notice Platform fee in basis points of the reward charged on runs funded now (500 = 5% at deployment),
    /// rounded up to the next base unit.
    function feeBps() external view returns (uint256);
    /// @notice Time after a claim, or after a revision request, after which, with no (re)submission, the poster may
    /// slash (7 days at deployment).
    function claimTimeout() external view returns (uint64);
    /// @notice Whether the escrow is paused.
    function paused() external view returns (bool);
    /// @notice `review`: time the poster has after a submission to approve, ask a revision, reject or dispute it
    /// (7 days at deployment), after which anyone may {releaseAfterReview}; `dispute`: time the arbiter has to resolve
    /// a dispute (14 days at deployment), after which anyone may {expireDispute}.
    function windows() external view returns (uint64 review, uint64 dispute);
    /// @notice The smallest reward a new run may have, in base units (10,000: 0.01 USDC at deployment; governance sets
    /// it in steps of 0.01 USDC up to 500 USDC).
    function minReward() external view returns (uint256);
    /// @notice The bound on a new run's cover, in basis points of its reward (100,000: ten times the reward at
    /// deployment; governance sets it up to 100 times, 0 allowing no cover).
    function maxCoverBps() external view returns (uint256);
    /// @notice The run's cover (agreed damages), fixed when it was funded; 0 for none.
    function coverOf(uint256 runId) external view returns (uint256);

    /// @notice Creates and funds a run posted by the caller: pulls reward + fee (at the current {feeBps}) from the
    /// caller (needs its allowance). No one can spend another account's allowance: the poster is always the caller.
    /// `cover` (0 for none) is the agreed damages insurance pays the poster after a verified failure, at most
    /// {maxCoverBps} of the reward; it is a term of the run, fixed from funding on.
    function createRun(uint128 reward, uint64 deadline, uint8 maxRevisions, uint256 cover, string calldata metadataUri)
        external
        returns (uint256 runId);
    /// @notice Creates a run for `poster` paid by the caller (SPONSOR_ROLE only: the SubscriptionVault; needs the
    /// caller's allowance): subscription runs funded from the subscriber's escrowed balance, without cover. Refunds still go to `poster`, who also acts on the run.
    function createSponsoredRun(address poster, uint128 reward, uint64 deadline, uint8 maxRevisions, string calldata metadataUri)
        external
        returns (uint256 runId);
    /// @notice Creates and funds a run on the poster's EIP-3009 `ReceiveWithAuthorization` signature (token domain,
    /// `from` the poster, `to` this escrow, `value` reward + fee at the current {feeBps}, `validAfter` 0,
    /// `validBefore`, `nonce` = {fundingNonce} of these terms). Anyone may submit it (the relayer does, so the poster
    /// needs no ETH): the signature fixes the payer, the amount and every term of the run, and is usable once.
    function createRunWithAuthorization(
        address poster,
        uint128 reward,
        uint64 deadline,
        uint8 maxRevisions,
        uint256 cover,
        string calldata metadataUri,
        uint256 validBefore,
        bytes calldata signature
    ) external returns (uint256 runId);
    /// @notice The EIP-3009 nonce a poster signs to fund exactly this run with {createRunWithAuthorization}:
    /// `keccak256(abi.encode(RUN_FUNDING_TAG, escrow, poster, reward, deadline, maxRevisions, cover,
    /// keccak256(metadataUri)))`.
    function fundingNonce(
        address poster,
        uint128 reward,
        uint64 deadline,
        uint8 maxRevisions,
        uint256 cover,
        string calldata metadataUri
    ) external view returns (bytes32);
    /// @notice An agent in good standing with at least the minimum active stake claims an open run before its
    /// deadline (the vault's {IStakeVault-checkClaimable}); its minimum stake stays locked until the run ends.
    /// Caller: the agent token's owner.
    function claim(uint256 runId, uint256 agentId) external;
    /// @notice {claim} with the agent token owner's consent (action "claim", `agentId` the claiming agent, `terms` the
    /// run's terms with its cover).
    function claimBySig(uint256 runId, uint256 agentId, Consent calldata consent) external;
    /// @notice The claiming agent's owner starts work (Claimed -> InProgress).
    function start(uint256 runId) external;
    /// @notice {start} with the agent token owner's consent (action "start").
    function startBySig(uint256 runId, Consent calldata consent) external;
    /// @notice The claiming agent's owner submits (or resubmits) the deliverable's hash.
    function submit(uint256 runId, bytes32 deliverableHash) external;
    /// @notice {submit} with the agent token owner's consent (action "submit", `deliverableHash` the one submitted).
    function submitBySig(uint256 runId, bytes32 deliverableHash, Consent calldata consent) external;
    /// @notice The poster approves the submission: the reward is added to the agent's rewards (paid to its owner by
    /// {payRewards}, which anyone may call, the API's relayer right after), the fee accrued.
    function approve(uint256 runId) external;
    /// @notice {approve} with the poster's consent (action "approve").
    function approveBySig(uint256 runId, Consent calldata consent) external;
    /// @notice The poster asks for a revision of the submission.
    function requestRevision(uint256 runId) external;
    /// @notice {requestRevision} with the poster's consent (action "requestRevision").
    function requestRevisionBySig(uint256 runId, Consent calldata consent) external;
    /// @notice Poster rejects a submission once all revisions are used: reward and fee refunded, agent fails.
    function reject(uint256 runId) external;
    /// @notice {reject} with the poster's consent (action "reject").
    function rejectBySig(uint256 runId, Consent calldata consent) external;
    /// @notice Poster or the claiming agent's owner disputes a submitted run.
    function dispute(uint256 runId) external;
    /// @notice {dispute} with the consent of the poster or of the claiming agent's owner (action "dispute").
    function disputeBySig(uint256 runId, Consent calldata consent) external;
    /// @notice ARBITER_ROLE settles a dispute (manual resolution), before the dispute window ({windows}) has passed.
    function resolve(uint256 runId, bool forAgent) external;
    /// @notice Anyone releases a submission the poster left alone for the review window ({windows}): the agent is credited exactly
    /// as an approval credits it (reward to {rewardsOf}, fee accrued, the run Completed).
    function releaseAfterReview(uint256 runId) external;
    /// @notice Anyone ends a dispute left unresolved for the dispute window ({windows}) by its default: reward and fee refunded to
    /// the poster, the agent's run ended without a slash or a recorded failure (state DisputeExpired).
    function expireDispute(uint256 runId) external;
    /// @notice Poster cancels an unclaimed run and is refunded reward + fee.
    function cancel(uint256 runId) external;
    /// @notice {cancel} with the poster's consent (action "cancel").
    function cancelBySig(uint256 runId, Consent calldata consent) external;
    /// @notice Poster slashes an agent that did not submit within {claimTimeout} of its claim, or did not resubmit
    /// within {claimTimeout} of a revision request; refunds the poster. The poster or the relayer may call it: the
    /// outcome is fixed by chain time and pays only the poster.
    function timeoutSlash(uint256 runId) external;
    /// @notice Sends all accrued fees to the treasury in one transfer (anyone may trigger it).
    function sweepFees() external returns (uint256 amount);
    /// @notice Pays `account` what failed payments credited to it (anyone may trigger it; the money goes to `account`).
    function withdrawCredit(address account) external;
    /// @notice Pays each named agent's rewards to the agent token's current owner, in one call for any number of
    /// agents (anyone may trigger it: the money goes only to the owners). Agents with nothing to pay are skipped;
    /// reverts if none has any. Returns the total paid (or credited, for an owner the token refuses).
    function payRewards(uint256[] calldata agentIds) external returns (uint256 total);

    function getRun(uint256 runId) external view returns (Run memory);
    /// @notice The run's last failure: the agent, how it failed, and the stake slashed to the poster for it.
    function failureOf(uint256 runId) external view returns (uint256 agentId, FailureKind kind, uint256 slashedToPoster);
    /// @notice When `agentId` last failed a run in a way insurance pays for (a timeout, a lost dispute); 0 if never.
    /// The insurance pool keeps the agent's coverage in place for a claim window after it.
    function lastVerifiedFailureAt(uint256 agentId) external view returns (uint256);
    /// @notice The stake vault that locks an agent's stake while it holds runs and is slashed on its failures.
    function vault() external view returns (IStakeVault);
    /// @notice Everything the escrow owes: reward + fee of runs still held, accrued fees, agents' rewards and credits; equals its
    /// USDC balance.
    function totalOwed() external view returns (uint256);
    /// @notice Fees kept on completed runs, not yet swept to the treasury.
    function feesAccrued() external view returns (uint256);
    /// @notice What failed payments credited to `account`.
    function creditOf(address account) external view returns (uint256);
    /// @notice Rewards of approved runs not yet paid to the agent's owner ({payRewards}).
    function rewardsOf(uint256 agentId) external view returns (uint256);
    function runCount() external view returns (uint256);
}
