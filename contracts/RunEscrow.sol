// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {NoncesKeyed} from "@openzeppelin/contracts/utils/NoncesKeyed.sol";
import {IERC3009Receive} from "./interfaces/IERC3009Receive.sol";
import {IRunEscrow} from "./interfaces/IRunEscrow.sol";
import {IStakeLocks, IStakeVault} from "./interfaces/IStakeVault.sol";
import {TransientReentrancyGuard} from "./utils/TransientReentrancyGuard.sol";

/// @title AgentHub run escrow
/// @notice Funds each run with its reward plus the platform fee and releases them on completion (reward added to
/// the agent's rewards, paid to the agent token's owner by {payRewards} in one transfer per agent and call; fee
/// accrued for the treasury and swept in one transfer), refunds them on cancel / reject / timeout, locks the
/// agent's minimum stake while it holds the run (its live-run count, which the {IStakeVault} asks on withdrawals)
/// and slashes it to the poster on a timeout or a lost dispute. A payment that fails (USDC blacklist) is credited,
/// never blocking.
/// @dev Invariant: `usdc.balanceOf(this) == totalOwed() == sum of reward + fee over runs not yet settled
/// + feesAccrued() + sum of rewardsOf + sum of creditOf`. An approval writes only the run's state, the ledger's
/// accrued fees and the agent's word (live runs - 1, rewards + reward): no call, no transfer. Storage per run is
/// three words, two of them written at creation: (poster, deadline, maxRevisions, revisions, state, feeBps),
/// (reward, agentId, claimedAt, since) and the deliverable hash. The fee is not stored: it is `ceil(reward * feeBps / 10_000)` with the fee rate in force when
/// the run was funded, so a governance change of {feeBps} never alters what an existing run owes.
/// Protocol parameters (fee rate, claim timeout, slash rate, treasury) change only through DEFAULT_ADMIN_ROLE,
/// held by the governance timelock. PAUSER_ROLE (the emergency Safe and the timelock) pauses every function that
/// moves USDC or starts a new obligation; start, submit, requestRevision and dispute stay open, so a pause never
/// makes an agent miss a chain-time deadline.
/// Poster and agent actions need the party itself as the caller, or its EIP-712 consent ({Consent}) through the
/// `...BySig` functions: the relayer cannot act for anyone without a signature, so its key alone moves no money.
/// Disputes are resolved by ARBITER_ROLE (the timelock and a configured arbiter), never by the relayer.
/// No run an agent holds needs the arbiter to end: the agent can always (re)submit; a submission the poster leaves
/// alone for the review window ({windows}) is released to the agent by anyone ({releaseAfterReview}), and a dispute left unresolved
/// for the dispute window ({windows}) ends by its default, a refund to the poster without slash ({expireDispute}).
contract RunEscrow is AccessControl, EIP712, NoncesKeyed, TransientReentrancyGuard, IRunEscrow {
    using SafeERC20 for IERC20;
    using SafeCast for uint256;

    /// @notice Triggers timeouts ({timeoutSlash}: chain time decides, only the poster is paid); acts for no poster or
    /// agent owner without its consent. It funds runs only as any other submitter of a poster's signed funding
    /// authorization ({createRunWithAuthorization}).
    bytes32 public constant RELAYER_ROLE = keccak256("RELAYER_ROLE");
    /// @notice Creates runs paid from its own balance for a poster ({createSponsoredRun}): the SubscriptionVault, which
    /// spends only a subscriber's escrowed balance on that subscriber's runs.
    bytes32 public constant SPONSOR_ROLE = keccak256("SPONSOR_ROLE");
    /// @notice Resolves disputes.
    bytes32 public constant ARBITER_ROLE = keccak256("ARBITER_ROLE");
    /// @notice Pauses and unpauses (the emergency multisig and the timelock).
    bytes32 public constant PAUSER_ROLE = keccak256("PAUSER_ROLE");

    /// @notice Highest fee governance may set: 10% of the reward.
    uint256 public constant MAX_FEE_BPS = 1_000;
    /// @notice Shortest claim timeout governance may set.
    uint64 public constant MIN_CLAIM_TIMEOUT = 1 days;
    /// @notice Longest claim timeout governance may set: the vault's shortest withdrawal cooldown.
    uint64 public constant MAX_CLAIM_TIMEOUT = 7 days;
    // Bounds of the review window (1..30 days), the dispute window (3..90 days) and the minimum reward (500 USDC)
    // governance may set ({setWindows}, {setMinReward}); the minimum reward is kept in units of 0.01 USDC.
    uint64 private constant _MIN_REVIEW_WINDOW = 1 days;
    uint64 private constant _MAX_REVIEW_WINDOW = 30 days;
    uint64 private constant _MIN_DISPUTE_WINDOW = 3 days;
    uint64 private constant _MAX_DISPUTE_WINDOW = 90 days;
    uint256 private constant _MAX_MIN_REWARD = 500e6;
    uint256 private constant _MIN_REWARD_UNIT = 10_000;
    // Highest cover bound governance may set: 100 times the reward ({setMaxCoverBps}).
    uint256 private constant _MAX_COVER_BPS = 1_000_000;

    /// @notice Tag of {fundingNonce}: the EIP-3009 nonce a poster signs binds its payment to one run's terms.
    bytes32 public constant RUN_FUNDING_TAG = keccak256(
        "AgentHubRunFunding(address escrow,address poster,uint256 reward,uint256 deadline,uint256 maxRevisions,uint256 cover,bytes32 metadataUriHash)"
    );

    /// @notice EIP-712 type of a party's consent to a run action (see {IRunEscrow-Consent}).
    bytes32 public constant RUN_CONSENT_TYPEHASH = keccak256(
        "RunConsent(string action,uint256 runId,uint256 agentId,bytes32 deliverableHash,RunTerms terms,uint256 nonce,uint256 deadline)RunTerms(address poster,uint256 reward,uint256 deadline,uint256 maxRevisions,uint256 cover)"
    );
    /// @notice EIP-712 type of the run terms a claim consent carries (the other actions carry all-zero terms).
    bytes32 public constant RUN_TERMS_TYPEHASH =
        keccak256("RunTerms(address poster,uint256 reward,uint256 deadline,uint256 maxRevisions,uint256 cover)");
    // The struct hash of all-zero terms, which every consent but a claim carries.
    bytes32 private constant _NO_TERMS = keccak256(abi.encode(RUN_TERMS_TYPEHASH, 0, 0, 0, 0, 0));

    uint256 private constant _MAX_BPS = 10_000;
    // keccak256 of each consent's `action` string (EIP-712 encodes strings by their hash).
    bytes32 private constant _CLAIM = keccak256("claim");
    bytes32 private constant _START = keccak256("start");
    bytes32 private constant _SUBMIT = keccak256("submit");
    bytes32 private constant _APPROVE = keccak256("approve");
    bytes32 private constant _REQUEST_REVISION = keccak256("requestRevision");
    bytes32 private constant _REJECT = keccak256("reject");
    bytes32 private constant _CANCEL = keccak256("cancel");
    bytes32 private constant _DISPUTE = keccak256("dispute");

    // Three words by design (solhint's packing heuristic misreads it): {_createRun} writes words 0 and 1 whole.
    // solhint-disable-next-line gas-struct-packing
    struct RunData {
        // word 0
        address poster;
        uint48 deadline;
        uint8 maxRevisions;
        uint8 revisions;
        RunState state;
        uint16 feeBps;
        // word 1
        uint96 reward;
        uint64 agentId;
        uint48 claimedAt;
        uint48 since;
        // word 2
        bytes32 deliverableHash;
    }

    /// @notice The payment token (USDC).
    IERC20 public immutable usdc;
    /// @notice The stake vault checked on claims and slashed on timeouts and lost disputes.
    IStakeVault public immutable vault;
    /// @notice The agent identity registry: rewards go to the agent token's owner when they are paid.
    IERC721 public immutable identity;

    /// @dev The last failure of a run (one word).
    struct Failure {
        uint96 slashedToPoster;
        uint64 agentId;
        FailureKind kind;
    }

    // One word, read and written by every run creation: run count, the ledger (total owed, of which accrued
    // fees), the fee rate, the pause flag and the minimum reward (in units of 0.01 USDC). 2^48 runs is out of reach
    // (a run costs ~95k gas).
    uint48 private _runCount;
    uint96 private _totalOwed;
    uint72 private _feesAccrued;
    uint16 private _feeBps;
    bool private _paused;
    uint16 private _minRewardUnits;
    // One word: treasury, slash rate, claim timeout and the cover bound (read by covered run creations).
    address private _treasury;
    uint16 private _slashBps;
    uint32 private _claimTimeout;
    uint32 private _maxCoverBps;
    // One word: the poster's review window and the arbiter's dispute window.
    uint32 private _reviewWindow;
    uint32 private _disputeWindow;

    mapping(uint256 runId => RunData) private _runs;
    mapping(uint256 runId => Failure) private _failures;
    /// @dev One word per agent, written by its claims and run ends. `known` is set at the first claim and never
    /// cleared, so the word never returns to zero and later claims write a warm, non-zero slot.
    struct AgentLedger {
        uint96 rewards;
        uint16 liveRuns;
        bool known;
    }

    mapping(uint256 agentId => AgentLedger) private _agents;
    mapping(address account => uint256) private _credits;
    mapping(uint256 agentId => uint256) private _lastVerifiedFailureAt;
    /// @dev A run's cover (agreed damages), fixed at funding; written only for covered runs.
    mapping(uint256 runId => uint256) private _covers;

    constructor(
        IERC20 usdc_,
        IStakeVault vault_,
        IERC721 identity_,
        address admin,
        address relayer,
        address treasury_
    ) EIP712("AgentHub RunEscrow", "1") {
        if (
            address(usdc_) == address(0) || address(vault_) == address(0) || address(identity_) == address(0)
                || admin == address(0) || relayer == address(0) || treasury_ == address(0)
        ) revert RunEscrowZeroAddress();
        usdc = usdc_;
        vault = vault_;
        identity = identity_;
        _treasury = treasury_;
        _slashBps = 5000;
        _feeBps = 500;
        _claimTimeout = 7 days;
        _minRewardUnits = 1;
        _reviewWindow = 7 days;
        _disputeWindow = 14 days;
        _maxCoverBps = 100_000;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(RELAYER_ROLE, relayer);
        emit TreasuryUpdated(treasury_);
        emit SlashBpsUpdated(5000);
        emit FeeBpsUpdated(500);
        emit ClaimTimeoutUpdated(7 days);
        emit MinRewardUpdated(10_000);
        emit WindowsUpdated(7 days, 14 days);
        emit MaxCoverBpsUpdated(100_000);
    }

    modifier whenNotPaused() {
        if (_paused) revert EnforcedPause();
        _;
    }

    // ---------------------------------------------------------------- poster: funding

    /// @inheritdoc IRunEscrow
    function createRun(uint128 reward, uint64 deadline, uint8 maxRevisions, uint256 cover, string calldata metadataUri)
        external
        nonReentrant
        returns (uint256 runId)
    {
        address poster = _msgSender();
        uint256 amount;
        (runId, amount) = _createRun(poster, reward, deadline, maxRevisions, cover, metadataUri);
        usdc.safeTransferFrom(poster, address(this), amount);
    }

    /// @inheritdoc IRunEscrow
    function createSponsoredRun(
        address poster,
        uint128 reward,
        uint64 deadline,
        uint8 maxRevisions,
        string calldata metadataUri
    ) external nonReentrant onlyRole(SPONSOR_ROLE) returns (uint256 runId) {
        uint256 amount;
        (runId, amount) = _createRun(poster, reward, deadline, maxRevisions, 0, metadataUri);
        usdc.safeTransferFrom(_msgSender(), address(this), amount);
    }

    /// @inheritdoc IRunEscrow
    /// @dev The token checks the signature (ECDSA or ERC-1271), the window and that the nonce is unused, and only
    /// lets the payee (this escrow) submit it; the nonce being {fundingNonce} of exactly these terms, a submitter
    /// can neither change them nor fund a second run with the same authorization.
    function createRunWithAuthorization(
        address poster,
        uint128 reward,
        uint64 deadline,
        uint8 maxRevisions,
        uint256 cover,
        string calldata metadataUri,
        uint256 validBefore,
        bytes calldata signature
    ) external nonReentrant returns (uint256 runId) {
        bytes32 nonce = fundingNonce(poster, reward, deadline, maxRevisions, cover, metadataUri);
        uint256 amount;
        (runId, amount) = _createRun(poster, reward, deadline, maxRevisions, cover, metadataUri);
        _receiveAuthorized(poster, amount, validBefore, nonce, signature);
    }

    /// @dev Pulls `amount` from `poster` on its EIP-3009 receive authorization with `nonce`.
    function _receiveAuthorized(
        address poster,
        uint256 amount,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) private {
        IERC3009Receive(address(usdc)).receiveWithAuthorization(
            poster, address(this), amount, 0, validBefore, nonce, signature
        );
    }

    /// @inheritdoc IRunEscrow
    function fundingNonce(
        address poster,
        uint128 reward,
        uint64 deadline,
        uint8 maxRevisions,
        uint256 cover,
        string calldata metadataUri
    ) public view returns (bytes32) {
        return keccak256(
            abi.encode(
                RUN_FUNDING_TAG,
                address(this),
                poster,
                reward,
                deadline,
                maxRevisions,
                cover,
                keccak256(bytes(metadataUri))
            )
        );
    }

    // ---------------------------------------------------------------- agent actions

    /// @inheritdoc IRunEscrow
    function claim(uint256 runId, uint256 agentId) external nonReentrant whenNotPaused {
        RunData storage run = _openForClaim(runId);
        _checkAgentOwner(agentId);
        _claim(runId, run, agentId);
    }

    /// @inheritdoc IRunEscrow
    function claimBySig(uint256 runId, uint256 agentId, Consent calldata consent) external nonReentrant whenNotPaused {
        RunData storage run = _openForClaim(runId);
        // The agent consents to the run's terms as they stand, cover included: a consent to other terms is refused.
        bytes32 terms = keccak256(
            abi.encode(RUN_TERMS_TYPEHASH, run.poster, run.reward, run.deadline, run.maxRevisions, _covers[runId])
        );
        _useConsent(_CLAIM, runId, agentId, bytes32(0), terms, identity.ownerOf(agentId), consent);
        _claim(runId, run, agentId);
    }

    /// @inheritdoc IRunEscrow
    function start(uint256 runId) external nonReentrant {
        RunData storage run = _run(runId);
        _requireState(runId, run.state, RunState.Claimed);
        uint256 agentId = run.agentId;
        _checkAgentOwner(agentId);
        _start(runId, run, agentId);
    }

    /// @inheritdoc IRunEscrow
    function startBySig(uint256 runId, Consent calldata consent) external nonReentrant {
        RunData storage run = _run(runId);
        _requireState(runId, run.state, RunState.Claimed);
        uint256 agentId = run.agentId;
        _useConsent(_START, runId, agentId, bytes32(0), _NO_TERMS, identity.ownerOf(agentId), consent);
        _start(runId, run, agentId);
    }

    /// @inheritdoc IRunEscrow
    function submit(uint256 runId, bytes32 deliverableHash) external nonReentrant {
        RunData storage run = _submittable(runId);
        uint256 agentId = run.agentId;
        _checkAgentOwner(agentId);
        _submit(runId, run, agentId, deliverableHash);
    }

    /// @inheritdoc IRunEscrow
    function submitBySig(uint256 runId, bytes32 deliverableHash, Consent calldata consent) external nonReentrant {
        RunData storage run = _submittable(runId);
        uint256 agentId = run.agentId;
        _useConsent(_SUBMIT, runId, agentId, deliverableHash, _NO_TERMS, identity.ownerOf(agentId), consent);
        _submit(runId, run, agentId, deliverableHash);
    }

    // ---------------------------------------------------------------- poster actions

    /// @inheritdoc IRunEscrow
    function approve(uint256 runId) external nonReentrant whenNotPaused {
        RunData storage run = _run(runId);
        _checkPoster(run.poster);
        _requireState(runId, run.state, RunState.Submitted);
        _complete(runId, run);
    }

    /// @inheritdoc IRunEscrow
    function approveBySig(uint256 runId, Consent calldata consent) external nonReentrant whenNotPaused {
        RunData storage run = _run(runId);
        _requireState(runId, run.state, RunState.Submitted);
        _usePosterConsent(_APPROVE, runId, run, consent);
        _complete(runId, run);
    }

    /// @inheritdoc IRunEscrow
    function requestRevision(uint256 runId) external nonReentrant {
        RunData storage run = _run(runId);
        _checkPoster(run.poster);
        _requestRevision(runId, run);
    }

    /// @inheritdoc IRunEscrow
    function requestRevisionBySig(uint256 runId, Consent calldata consent) external nonReentrant {
        RunData storage run = _run(runId);
        _requireState(runId, run.state, RunState.Submitted);
        _usePosterConsent(_REQUEST_REVISION, runId, run, consent);
        _requestRevision(runId, run);
    }

    /// @inheritdoc IRunEscrow
    function reject(uint256 runId) external nonReentrant whenNotPaused {
        RunData storage run = _run(runId);
        _checkPoster(run.poster);
        _reject(runId, run);
    }

    /// @inheritdoc IRunEscrow
    function rejectBySig(uint256 runId, Consent calldata consent) external nonReentrant whenNotPaused {
        RunData storage run = _run(runId);
        _requireState(runId, run.state, RunState.Submitted);
        _usePosterConsent(_REJECT, runId, run, consent);
        _reject(runId, run);
    }

    /// @inheritdoc IRunEscrow
    function cancel(uint256 runId) external nonReentrant whenNotPaused {
        RunData storage run = _run(runId);
        _checkPoster(run.poster);
        _cancel(runId, run);
    }

    /// @inheritdoc IRunEscrow
    function cancelBySig(uint256 runId, Consent calldata consent) external nonReentrant whenNotPaused {
        RunData storage run = _run(runId);
        _requireState(runId, run.state, RunState.Open);
        _usePosterConsent(_CANCEL, runId, run, consent);
        _cancel(runId, run);
    }

    /// @inheritdoc IRunEscrow
    /// @dev Claimed / InProgress runs time out {claimTimeout} after the claim; RevisionRequested runs the same time
    /// after the (last) revision request.
    function timeoutSlash(uint256 runId) external nonReentrant whenNotPaused {
        RunData storage run = _run(runId);
        address poster = run.poster;
        // The relayer may trigger it: chain time decides, and only the poster is paid.
        if (_msgSender() != poster && !hasRole(RELAYER_ROLE, _msgSender())) revert RunEscrowUnauthorized(_msgSender());
        RunState state = run.state;
        if (state == RunState.Claimed || state == RunState.InProgress) {
            _requireElapsed(runId, run.claimedAt, _claimTimeout);
        } else if (state == RunState.RevisionRequested) {
            _requireElapsed(runId, run.since, _claimTimeout);
        } else {
            revert RunEscrowInvalidState(runId, state);
        }

        uint256 agentId = run.agentId;
        run.state = RunState.TimedOut;
        uint256 amount = _release(run);
        _endLiveRun(agentId);
        uint256 slashed = vault.slashForRun(
            agentId, _slashBps, poster, state == RunState.RevisionRequested ? "revision timeout" : "claim timeout"
        );
        _failures[runId] =
            Failure({agentId: uint64(agentId), kind: FailureKind.TimedOut, slashedToPoster: uint96(slashed)});
        _lastVerifiedFailureAt[agentId] = block.timestamp;
        emit RunTimedOut(runId, agentId, slashed);
        _pay(poster, amount);
    }

    // ---------------------------------------------------------------- disputes

    /// @inheritdoc IRunEscrow
    /// @dev `by` in {RunDisputed} is the caller: the poster or the agent's owner.
    function dispute(uint256 runId) external nonReentrant {
        RunData storage run = _disputable(runId);
        uint256 agentId = run.agentId;
        address caller = _msgSender();
        if (caller != run.poster && caller != identity.ownerOf(agentId)) revert RunEscrowUnauthorized(caller);
        _dispute(runId, run, agentId, caller);
    }

    /// @inheritdoc IRunEscrow
    /// @dev `by` in {RunDisputed} is the consent's signer.
    function disputeBySig(uint256 runId, Consent calldata consent) external nonReentrant {
        RunData storage run = _disputable(runId);
        uint256 agentId = run.agentId;
        address signer = consent.signer;
        address party = signer == run.poster ? signer : identity.ownerOf(agentId);
        _useConsent(_DISPUTE, runId, agentId, run.deliverableHash, _NO_TERMS, party, consent);
        _dispute(runId, run, agentId, signer);
    }

    /// @inheritdoc IRunEscrow
    /// @dev For the agent: completed and paid as {approve} (emits {DisputeResolved} then {RunCompleted}).
    /// For the poster: `slashBps` of the agent's stake goes to the poster, the agent is recorded as failed and
    /// the run reopens (agent, claim time, revisions and deliverable cleared; deadline unchanged).
    function resolve(uint256 runId, bool forAgent) external nonReentrant whenNotPaused {
        if (!hasRole(ARBITER_ROLE, _msgSender())) revert RunEscrowUnauthorized(_msgSender());
        RunData storage run = _run(runId);
        _requireState(runId, run.state, RunState.Disputed);
        // After the window the dispute ends only by its default ({expireDispute}): the outcome never races.
        if (block.timestamp >= uint256(run.since) + _disputeWindow) revert RunEscrowDisputeWindowOver(runId);
        uint256 agentId = run.agentId;

        if (forAgent) {
            emit DisputeResolved(runId, agentId, true, 0);
            _complete(runId, run);
        } else {
            address poster = run.poster;
            run.state = RunState.Open;
            run.revisions = 0;
            run.agentId = 0;
            run.claimedAt = 0;
            run.since = 0;
            run.deliverableHash = bytes32(0);
            _endLiveRun(agentId);
            uint256 slashed = vault.slashForRun(agentId, _slashBps, poster, "dispute lost");
            _failures[runId] =
                Failure({agentId: uint64(agentId), kind: FailureKind.DisputeLost, slashedToPoster: uint96(slashed)});
            _lastVerifiedFailureAt[agentId] = block.timestamp;
            emit DisputeResolved(runId, agentId, false, slashed);
        }
    }

    // ---------------------------------------------------------------- exits without the poster or the arbiter

    /// @inheritdoc IRunEscrow
    /// @dev Anyone may call it: chain time decides, and the money goes only to the agent (through {rewardsOf}).
    function releaseAfterReview(uint256 runId) external nonReentrant whenNotPaused {
        RunData storage run = _run(runId);
        _requireState(runId, run.state, RunState.Submitted);
        _requireElapsed(runId, run.since, _reviewWindow);
        emit RunReleasedAfterReview(runId, run.agentId, _msgSender());
        _complete(runId, run);
    }

    /// @inheritdoc IRunEscrow
    /// @dev Anyone may call it: chain time decides, and the money goes only to the poster, who funded the run.
    function expireDispute(uint256 runId) external nonReentrant whenNotPaused {
        RunData storage run = _run(runId);
        _requireState(runId, run.state, RunState.Disputed);
        _requireElapsed(runId, run.since, _disputeWindow);
        uint256 agentId = run.agentId;
        run.state = RunState.DisputeExpired;
        uint256 amount = _release(run);
        _endLiveRun(agentId);
        emit DisputeExpired(runId, agentId, _msgSender(), amount);
        _pay(run.poster, amount);
    }

    // ---------------------------------------------------------------- settlement

    /// @inheritdoc IRunEscrow
    function sweepFees() external nonReentrant whenNotPaused returns (uint256 amount) {
        amount = _feesAccrued;
        if (amount == 0) revert RunEscrowNothingToSweep();
        address treasury_ = _treasury;
        _feesAccrued = 0;
        _totalOwed -= uint96(amount);
        emit FeesSwept(treasury_, amount);
        usdc.safeTransfer(treasury_, amount);
    }

    /// @inheritdoc IRunEscrow
    function payRewards(uint256[] calldata agentIds) external nonReentrant whenNotPaused returns (uint256 total) {
        for (uint256 i = 0; i < agentIds.length; ++i) {
            uint256 agentId = agentIds[i];
            AgentLedger storage agent = _agents[agentId];
            uint256 amount = agent.rewards;
            if (amount == 0) continue;
            agent.rewards = 0;
            address owner = identity.ownerOf(agentId);
            _totalOwed -= uint96(amount);
            total += amount;
            emit RewardsPaid(agentId, owner, amount);
            _pay(owner, amount);
        }
        if (total == 0) revert RunEscrowNothingToPay();
    }

    /// @inheritdoc IRunEscrow
    function withdrawCredit(address account) external nonReentrant whenNotPaused {
        uint256 amount = _credits[account];
        if (amount == 0) revert RunEscrowNoCredit(account);
        _credits[account] = 0;
        _totalOwed -= uint96(amount);
        emit CreditWithdrawn(account, amount);
        usdc.safeTransfer(account, amount);
    }

    // ---------------------------------------------------------------- admin

    /// @notice Sets the fee recipient (where {sweepFees} sends accrued fees). Admin (governance) only.
    function setTreasury(address newTreasury) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (newTreasury == address(0)) revert RunEscrowZeroAddress();
        _treasury = newTreasury;
        emit TreasuryUpdated(newTreasury);
    }

    /// @notice Sets the share of the agent's stake slashed on timeouts and lost disputes (1..10000). Admin
    /// (governance) only.
    function setSlashBps(uint256 bps) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (bps == 0 || bps > _MAX_BPS) revert RunEscrowInvalidBps(bps);
        _slashBps = uint16(bps);
        emit SlashBpsUpdated(bps);
    }

    /// @notice Sets the platform fee charged on runs funded from now on (0..MAX_FEE_BPS). Admin (governance) only.
    /// @dev Runs already funded keep the fee rate they were funded with.
    function setFeeBps(uint256 bps) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (bps > MAX_FEE_BPS) revert RunEscrowInvalidFeeBps(bps);
        _feeBps = uint16(bps);
        emit FeeBpsUpdated(bps);
    }

    /// @notice Sets how long after a claim or a revision request, without a (re)submission, the poster may slash
    /// (MIN_CLAIM_TIMEOUT..MAX_CLAIM_TIMEOUT). Applies to runs already claimed too. Admin (governance) only.
    function setClaimTimeout(uint64 timeout) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (timeout < MIN_CLAIM_TIMEOUT || timeout > MAX_CLAIM_TIMEOUT) revert RunEscrowInvalidClaimTimeout(timeout);
        _claimTimeout = uint32(timeout);
        emit ClaimTimeoutUpdated(timeout);
    }

    /// @notice Sets the smallest reward of runs created from now on: a multiple of 0.01 USDC (10,000 base units) up to
    /// 500 USDC; 0 leaves only the zero reward refused. Admin (governance) only.
    function setMinReward(uint256 amount) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (amount > _MAX_MIN_REWARD || amount % _MIN_REWARD_UNIT != 0) revert RunEscrowInvalidMinReward(amount);
        _minRewardUnits = uint16(amount / _MIN_REWARD_UNIT);
        emit MinRewardUpdated(amount);
    }

    /// @notice Sets the poster's review window (1..30 days) and the arbiter's dispute window (3..90 days). Applies to
    /// submissions and disputes already waiting too. Admin (governance) only.
    function setWindows(uint64 review, uint64 dispute_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (
            review < _MIN_REVIEW_WINDOW || review > _MAX_REVIEW_WINDOW || dispute_ < _MIN_DISPUTE_WINDOW
                || dispute_ > _MAX_DISPUTE_WINDOW
        ) revert RunEscrowInvalidWindows(review, dispute_);
        _reviewWindow = uint32(review);
        _disputeWindow = uint32(dispute_);
        emit WindowsUpdated(review, dispute_);
    }

    /// @notice Sets the bound on the cover of runs funded from now on: at most `bps` / 10,000 times the reward (0..100
    /// times; 0 allows no cover). Runs already funded keep their cover. Admin (governance) only.
    function setMaxCoverBps(uint256 bps) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (bps > _MAX_COVER_BPS) revert RunEscrowInvalidBps(bps);
        _maxCoverBps = uint32(bps);
        emit MaxCoverBpsUpdated(bps);
    }

    /// @notice Stops every function that moves USDC or starts a new obligation. PAUSER_ROLE only.
    function pause() external onlyRole(PAUSER_ROLE) {
        if (_paused) revert EnforcedPause();
        _paused = true;
        emit Paused(_msgSender());
    }

    /// @notice Lifts a pause. PAUSER_ROLE only.
    function unpause() external onlyRole(PAUSER_ROLE) {
        if (!_paused) revert ExpectedPause();
        _paused = false;
        emit Unpaused(_msgSender());
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IRunEscrow
    function getRun(uint256 runId) external view returns (Run memory) {
        RunData storage run = _runs[runId];
        uint96 reward = run.reward;
        return Run({
            poster: run.poster,
            deadline: run.deadline,
            maxRevisions: run.maxRevisions,
            revisions: run.revisions,
            state: run.state,
            reward: reward,
            fee: uint128(_fee(reward, run.feeBps)),
            agentId: run.agentId,
            claimedAt: run.claimedAt,
            since: run.since,
            deliverableHash: run.deliverableHash
        });
    }

    /// @inheritdoc IRunEscrow
    function failureOf(uint256 runId)
        external
        view
        returns (uint256 agentId, FailureKind kind, uint256 slashedToPoster)
    {
        Failure memory f = _failures[runId];
        return (f.agentId, f.kind, f.slashedToPoster);
    }

    /// @inheritdoc IRunEscrow
    function lastVerifiedFailureAt(uint256 agentId) external view returns (uint256) {
        return _lastVerifiedFailureAt[agentId];
    }

    /// @inheritdoc IRunEscrow
    function totalOwed() external view returns (uint256) {
        return _totalOwed;
    }

    /// @inheritdoc IRunEscrow
    function feesAccrued() external view returns (uint256) {
        return _feesAccrued;
    }

    /// @inheritdoc IRunEscrow
    function creditOf(address account) external view returns (uint256) {
        return _credits[account];
    }

    /// @inheritdoc IRunEscrow
    function rewardsOf(uint256 agentId) external view returns (uint256) {
        return _agents[agentId].rewards;
    }

    /// @inheritdoc IStakeLocks
    function liveRunsOf(uint256 agentId) external view returns (uint256) {
        return _agents[agentId].liveRuns;
    }

    /// @inheritdoc IRunEscrow
    function runCount() external view returns (uint256) {
        return _runCount;
    }

    /// @notice The fee recipient.
    function treasury() external view returns (address) {
        return _treasury;
    }

    /// @notice Basis points of the agent's stake slashed on a timeout or a lost dispute.
    function slashBps() external view returns (uint256) {
        return _slashBps;
    }

    /// @inheritdoc IRunEscrow
    function feeBps() external view returns (uint256) {
        return _feeBps;
    }

    /// @inheritdoc IRunEscrow
    function claimTimeout() external view returns (uint64) {
        return _claimTimeout;
    }

    /// @inheritdoc IRunEscrow
    function paused() external view returns (bool) {
        return _paused;
    }

    /// @inheritdoc IRunEscrow
    function windows() external view returns (uint64 review, uint64 dispute_) {
        return (_reviewWindow, _disputeWindow);
    }

    /// @inheritdoc IRunEscrow
    function maxCoverBps() external view returns (uint256) {
        return _maxCoverBps;
    }

    /// @inheritdoc IRunEscrow
    function coverOf(uint256 runId) external view returns (uint256) {
        return _covers[runId];
    }

    /// @inheritdoc IRunEscrow
    function minReward() external view returns (uint256) {
        return uint256(_minRewardUnits) * _MIN_REWARD_UNIT;
    }

    // ---------------------------------------------------------------- internals

    /// @dev Records the run at the current fee rate and returns what the caller then pulls from the payer
    /// (reward + fee; the poster, or for a sponsored run the SubscriptionVault, from the subscriber's escrowed balance).
    function _createRun(
        address poster,
        uint128 reward,
        uint64 deadline,
        uint8 maxRevisions,
        uint256 cover,
        string calldata metadataUri
    ) private returns (uint256 runId, uint256 amount) {
        uint256 fee;
        uint16 rate;
        (runId, fee, rate) = _bookNewRun(poster, reward, deadline);
        // Below 2^97: the reward fits 96 bits ({_bookNewRun} checked it) and the fee is at most a tenth of it.
        unchecked {
            amount = reward + fee;
        }
        uint48 deadline48 = uint256(deadline).toUint48();
        RunData storage run = _runs[runId];
        // Whole-word writes (the compiler would read-modify-write each packed field): word 0 is (poster, deadline,
        // maxRevisions, revisions = 0, state = Open = 1, feeBps), word 1 is (reward, agentId = 0, claimedAt = 0,
        // since = 0); the layout follows the declaration order of {RunData}.
        assembly ("memory-safe") {
            sstore(
                run.slot,
                or(or(poster, shl(160, deadline48)), or(shl(208, maxRevisions), or(shl(224, 1), shl(232, rate))))
            )
            sstore(add(run.slot, 1), reward)
        }

        emit RunCreated(runId, poster, reward, deadline, maxRevisions, metadataUri);
        if (cover != 0) _setCover(runId, poster, reward, cover);
    }

    /// @dev Fixes a new run's cover, at most {maxCoverBps} of its reward: it never changes after funding.
    function _setCover(uint256 runId, address poster, uint256 reward, uint256 cover) private {
        // Below 2^128 * 2^32: no overflow.
        uint256 maximum;
        unchecked {
            maximum = reward * _maxCoverBps / _MAX_BPS;
        }
        if (cover > maximum) revert RunEscrowCoverTooHigh(cover, maximum);
        _covers[runId] = cover;
        emit RunCoverSet(runId, poster, cover);
    }

    /// @dev Checks the pause and a new run's terms (the minimum reward included), then books the run on the ledger word: run count + 1, reward + fee
    /// (at the current fee rate) added to the total owed. The word is read once and written once, its other fields
    /// (accrued fees, fee rate, `_paused` = false) kept as read; Solidity would load the slot again for each packed
    /// field it reads and unpack and repack the fields it does not change.
    function _bookNewRun(address poster, uint128 reward, uint64 deadline)
        private
        returns (uint256 runId, uint256 fee, uint16 rate)
    {
        uint256 ledger;
        bool paused_;
        uint64 count;
        uint96 owed;
        uint256 minimum;
        assembly ("memory-safe") {
            ledger := sload(_runCount.slot)
            paused_ := and(shr(mul(8, _paused.offset), ledger), 0xff)
            count := and(shr(mul(8, _runCount.offset), ledger), 0xffffffffffff)
            minimum := mul(and(shr(mul(8, _minRewardUnits.offset), ledger), 0xffff), _MIN_REWARD_UNIT)
            owed := and(shr(mul(8, _totalOwed.offset), ledger), 0xffffffffffffffffffffffff)
            rate := and(shr(mul(8, _feeBps.offset), ledger), 0xffff)
        }
        if (paused_) revert EnforcedPause();
        if (poster == address(0)) revert RunEscrowZeroAddress();
        if (reward == 0) revert RunEscrowZeroReward();
        if (reward < minimum) revert RunEscrowRewardTooLow(reward, minimum);
        runId = count + 1;
        if (deadline <= block.timestamp) revert RunEscrowDeadlinePassed(runId);
        fee = _fee(reward, rate);
        uint96 newOwed;
        // Below 2^130 (a uint96 plus twice a uint128): no overflow check needed before the cast's, which also
        // refuses a reward above the 96 bits a run stores it in (the total owed includes it).
        unchecked {
            newOwed = (owed + uint256(reward) + fee).toUint96();
        }
        assembly ("memory-safe") {
            let countMask := shl(mul(8, _runCount.offset), 0xffffffffffff)
            let owedMask := shl(mul(8, _totalOwed.offset), 0xffffffffffffffffffffffff)
            sstore(
                _runCount.slot,
                or(
                    and(ledger, not(or(countMask, owedMask))),
                    or(shl(mul(8, _runCount.offset), runId), shl(mul(8, _totalOwed.offset), newOwed))
                )
            )
        }
    }

    /// @dev Marks the run completed, ends the agent's live run, adds the reward to the agent's rewards and accrues
    /// the fee. Both stay in the total owed until paid ({payRewards}, {sweepFees}).
    function _complete(uint256 runId, RunData storage run) private {
        uint256 agentId = run.agentId;
        uint96 reward = run.reward;
        uint256 fee = _fee(reward, run.feeBps);

        run.state = RunState.Completed;
        _feesAccrued += uint72(fee);
        AgentLedger storage agent = _agents[agentId];
        // Both bounded: the claim counted this run, and every reward is part of the uint96 total owed.
        unchecked {
            --agent.liveRuns;
            agent.rewards += reward;
        }
        emit RunCompleted(runId, agentId, reward, fee);
    }

    /// @dev Removes a run's reward + fee from the total owed; returns that amount.
    function _release(RunData storage run) private returns (uint256 amount) {
        uint96 reward = run.reward;
        amount = reward + _fee(reward, run.feeBps);
        _totalOwed -= uint96(amount);
    }

    /// @dev Pays `amount` (already taken off the total owed) to `to`; if the token refuses (a blacklisted
    /// recipient, a paused token), credits it to `to` instead so the run still settles.
    function _pay(address to, uint256 amount) private {
        if (usdc.trySafeTransfer(to, amount)) return;
        _credits[to] += amount;
        _totalOwed += uint96(amount);
        emit PaymentDeferred(to, amount);
    }

    /// @dev The fee on `reward` at `rate` basis points, rounded up: at a non-zero rate any reward pays at least one
    /// base unit.
    function _fee(uint128 reward, uint16 rate) private pure returns (uint256) {
        // Below 2^145 by the argument types: no overflow check needed.
        unchecked {
            return (uint256(reward) * rate + _MAX_BPS - 1) / _MAX_BPS;
        }
    }

    function _run(uint256 runId) private view returns (RunData storage run) {
        run = _runs[runId];
        if (run.state == RunState.None) revert RunEscrowUnknownRun(runId);
    }

    function _requireState(uint256 runId, RunState state, RunState expected) private pure {
        if (state != expected) revert RunEscrowInvalidState(runId, state);
    }

    /// @dev Direct poster actions: the poster itself (funding from an allowance or a permit takes the caller as poster).
    function _checkPoster(address poster) private view {
        if (_msgSender() != poster) revert RunEscrowUnauthorized(_msgSender());
    }

    /// @dev Direct agent actions: the agent token's current owner.
    function _checkAgentOwner(uint256 agentId) private view {
        if (_msgSender() != identity.ownerOf(agentId)) revert RunEscrowUnauthorized(_msgSender());
    }

    /// @dev Checks and spends `consent`: signed by `party` for `action` on this run with this agent and
    /// deliverable, before its deadline, with the signer's next nonce of its key. ERC-1271 signers (smart
    /// accounts) are asked through {SignatureChecker}.
    function _useConsent(
        bytes32 action,
        uint256 runId,
        uint256 agentId,
        bytes32 deliverableHash,
        bytes32 terms,
        address party,
        Consent calldata consent
    ) private {
        address signer = consent.signer;
        if (signer != party) revert RunEscrowWrongSigner(signer);
        if (block.timestamp > consent.deadline) revert RunEscrowConsentExpired(consent.deadline);
        _useCheckedNonce(signer, consent.nonce);
        bytes32 digest = _hashTypedDataV4(
            keccak256(
                abi.encode(
                    RUN_CONSENT_TYPEHASH,
                    action,
                    runId,
                    agentId,
                    deliverableHash,
                    terms,
                    consent.nonce,
                    consent.deadline
                )
            )
        );
        if (!SignatureChecker.isValidSignatureNowCalldata(signer, digest, consent.signature)) {
            revert RunEscrowInvalidConsent(signer);
        }
    }

    /// @dev A poster's consent names the run's current agent and deliverable (0 while open).
    function _usePosterConsent(bytes32 action, uint256 runId, RunData storage run, Consent calldata consent) private {
        _useConsent(action, runId, run.agentId, run.deliverableHash, _NO_TERMS, run.poster, consent);
    }

    // ---------------------------------------------------------------- action bodies (checks done by callers)

    function _openForClaim(uint256 runId) private view returns (RunData storage run) {
        run = _run(runId);
        _requireState(runId, run.state, RunState.Open);
        if (block.timestamp > run.deadline) revert RunEscrowDeadlinePassed(runId);
    }

    function _claim(uint256 runId, RunData storage run, uint256 agentId) private {
        // Reverts unless the agent is in good standing with the minimum stake active.
        vault.checkClaimable(agentId);
        AgentLedger storage agent = _agents[agentId];
        uint16 live = agent.liveRuns;
        if (live == type(uint16).max) revert RunEscrowTooManyRuns(agentId);
        unchecked {
            agent.liveRuns = live + 1;
        }
        agent.known = true;
        run.state = RunState.Claimed;
        run.agentId = agentId.toUint64();
        run.claimedAt = uint48(block.timestamp);
        emit RunClaimed(runId, agentId);
    }

    /// @dev A run the agent held ended: one live run fewer (the claim counted it).
    function _endLiveRun(uint256 agentId) private {
        unchecked {
            --_agents[agentId].liveRuns;
        }
    }

    function _start(uint256 runId, RunData storage run, uint256 agentId) private {
        run.state = RunState.InProgress;
        emit RunStarted(runId, agentId);
    }

    function _submittable(uint256 runId) private view returns (RunData storage run) {
        run = _run(runId);
        RunState state = run.state;
        if (state != RunState.Claimed && state != RunState.InProgress && state != RunState.RevisionRequested) {
            revert RunEscrowInvalidState(runId, state);
        }
    }

    function _submit(uint256 runId, RunData storage run, uint256 agentId, bytes32 deliverableHash) private {
        run.state = RunState.Submitted;
        run.since = uint48(block.timestamp);
        run.deliverableHash = deliverableHash;
        emit RunSubmitted(runId, agentId, deliverableHash);
    }

    function _requestRevision(uint256 runId, RunData storage run) private {
        _requireState(runId, run.state, RunState.Submitted);
        _checkInReview(runId, run);
        uint8 revisions = run.revisions;
        if (revisions >= run.maxRevisions) revert RunEscrowRevisionsExhausted(runId);

        unchecked {
            ++revisions;
        }
        run.revisions = revisions;
        run.state = RunState.RevisionRequested;
        run.since = uint48(block.timestamp);
        emit RevisionRequested(runId, run.agentId, revisions);
    }

    function _reject(uint256 runId, RunData storage run) private {
        _requireState(runId, run.state, RunState.Submitted);
        _checkInReview(runId, run);
        if (run.revisions < run.maxRevisions) revert RunEscrowRevisionsRemaining(runId);

        address poster = run.poster;
        uint256 agentId = run.agentId;
        run.state = RunState.Rejected;
        _failures[runId] = Failure({agentId: uint64(agentId), kind: FailureKind.Rejected, slashedToPoster: 0});
        uint256 amount = _release(run);
        emit RunRejected(runId, agentId);
        _endLiveRun(agentId);
        _pay(poster, amount);
    }

    function _cancel(uint256 runId, RunData storage run) private {
        _requireState(runId, run.state, RunState.Open);
        run.state = RunState.Cancelled;
        uint256 amount = _release(run);
        emit RunCancelled(runId);
        _pay(run.poster, amount);
    }

    /// @dev Reverts until `period` seconds have passed since `start`.
    function _requireElapsed(uint256 runId, uint256 start, uint256 period) private view {
        uint256 availableAt = start + period;
        if (block.timestamp < availableAt) revert RunEscrowTimeoutNotReached(runId, uint64(availableAt));
    }

    /// @dev A submission can be turned down (revision, rejection, dispute) only within the poster's review window.
    function _checkInReview(uint256 runId, RunData storage run) private view {
        if (block.timestamp >= uint256(run.since) + _reviewWindow) revert RunEscrowReviewWindowOver(runId);
    }

    /// @dev The run enters Disputed: the arbiter's the dispute window ({windows}) starts.
    function _dispute(uint256 runId, RunData storage run, uint256 agentId, address by) private {
        if (run.state != RunState.RevisionRequested) _checkInReview(runId, run);
        run.state = RunState.Disputed;
        run.since = uint48(block.timestamp);
        emit RunDisputed(runId, agentId, by);
    }

    function _disputable(uint256 runId) private view returns (RunData storage run) {
        run = _run(runId);
        RunState state = run.state;
        if (state != RunState.Submitted && state != RunState.RevisionRequested) {
            revert RunEscrowInvalidState(runId, state);
        }
    }
}
