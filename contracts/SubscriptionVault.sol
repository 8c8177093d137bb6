// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {IRunEscrow} from "./interfaces/IRunEscrow.sol";
import {ISubscriptionVault} from "./interfaces/ISubscriptionVault.sol";
import {RolePausable} from "./utils/RolePausable.sol";
import {TransientReentrancyGuard} from "./utils/TransientReentrancyGuard.sol";

/// @title AgentHub subscription vault
/// @notice Holds each subscription's prepaid USDC, escrowed per subscriber, and turns it into runs at the cadence the
/// subscriber signed: every run is created in the {IRunEscrow} with the subscriber as poster, the signed reward and
/// revisions, paid from that subscription's balance and from nothing else. The relayer only triggers: a run exists
/// only when one is due (`nextRunAt` reached, runs left, balance for reward + fee), and its only free argument is the
/// metadata URI. Cancelling refunds the unspent balance to the subscriber; a completed schedule refunds any leftover.
/// @dev Invariant: `usdc.balanceOf(this) == totalHeld() == sum of balanceOf(id)` over all subscriptions.
/// Consent: the subscriber opens directly, or signs the {Subscribe} terms (EIP-712, ERC-1271 for contract wallets)
/// and a USDC permit for the amount, and anyone submits both. Pause, resume and cancel are the subscriber's or the
/// relayer's (after the API verified the subscriber's signed request): none of them can move funds anywhere but
/// back to the subscriber, and a resumed subscription still runs only at the signed cadence and terms.
contract SubscriptionVault is RolePausable, TransientReentrancyGuard, EIP712, Nonces, ISubscriptionVault {
    using SafeERC20 for IERC20;
    using SafeCast for uint256;

    /// @notice Triggers due runs, and pauses, resumes and cancels for subscribers whose signed requests the API checked.
    bytes32 public constant RELAYER_ROLE = keccak256("RELAYER_ROLE");

    /// @notice Shortest time between two runs.
    uint32 public constant MIN_INTERVAL = 1 hours;
    /// @notice Shortest and longest time a run stays open for a claim.
    uint32 public constant MIN_RUN_DURATION = 1 hours;
    uint32 public constant MAX_RUN_DURATION = 366 days;

    bytes32 private constant _SUBSCRIBE_TYPEHASH = keccak256(
        "Subscribe(address subscriber,uint96 rewardPerRun,uint32 interval,uint48 startsAt,uint32 totalRuns,uint32 runDuration,uint8 maxRevisions,uint256 amount,uint256 nonce,uint256 deadline)"
    );

    /// @notice The payment token (USDC).
    IERC20 public immutable usdc;
    /// @notice Where runs are created (this contract holds its SPONSOR_ROLE).
    IRunEscrow public immutable escrow;

    uint256 private _count;
    uint256 private _totalHeld;
    mapping(uint256 id => Subscription) private _subscriptions;

    constructor(IERC20 usdc_, IRunEscrow escrow_, address admin, address relayer) EIP712("AgentHub SubscriptionVault", "1") {
        if (address(usdc_) == address(0) || address(escrow_) == address(0) || admin == address(0) || relayer == address(0)) {
            revert SubscriptionVaultZeroAddress();
        }
        usdc = usdc_;
        escrow = escrow_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(RELAYER_ROLE, relayer);
    }

    // ---------------------------------------------------------------- opening and funding

    /// @inheritdoc ISubscriptionVault
    function open(Terms calldata terms, uint256 amount) external nonReentrant whenNotPaused returns (uint256 id) {
        if (_msgSender() != terms.subscriber) revert SubscriptionVaultUnauthorized(_msgSender());
        id = _open(terms, amount);
    }

    /// @inheritdoc ISubscriptionVault
    /// @dev A failing permit (e.g. already submitted by a front-runner) is ignored; the transfer then needs the
    /// allowance to be in place.
    function openWithPermit(
        Terms calldata terms,
        uint256 amount,
        uint256 deadline,
        bytes calldata signature,
        uint256 permitDeadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external nonReentrant whenNotPaused returns (uint256 id) {
        if (block.timestamp > deadline) revert SubscriptionVaultExpiredSignature(deadline);
        // A struct of static fields encodes as its fields in order: this is the EIP-712 encoding of Subscribe.
        bytes32 digest = _hashTypedDataV4(
            keccak256(abi.encode(_SUBSCRIBE_TYPEHASH, terms, amount, _useNonce(terms.subscriber), deadline))
        );
        if (!SignatureChecker.isValidSignatureNow(terms.subscriber, digest, signature)) {
            revert SubscriptionVaultInvalidSignature(terms.subscriber);
        }
        try IERC20Permit(address(usdc)).permit(terms.subscriber, address(this), amount, permitDeadline, v, r, s) {} catch {}
        id = _open(terms, amount);
    }

    /// @inheritdoc ISubscriptionVault
    function topUp(uint256 id, uint256 amount) external nonReentrant whenNotPaused {
        _fund(id, _msgSender(), amount);
    }

    /// @inheritdoc ISubscriptionVault
    /// @dev The permit is the subscriber's consent to pay `amount` into this vault, where only the subscriber can get
    /// it back; the subscriber or the relayer submits it.
    function topUpWithPermit(uint256 id, uint256 amount, uint256 permitDeadline, uint8 v, bytes32 r, bytes32 s)
        external
        nonReentrant
        whenNotPaused
    {
        address subscriber = _subscriptions[id].subscriber;
        _checkSubscriberOrRelayer(subscriber);
        try IERC20Permit(address(usdc)).permit(subscriber, address(this), amount, permitDeadline, v, r, s) {} catch {}
        _fund(id, subscriber, amount);
    }

    // ---------------------------------------------------------------- runs

    /// @inheritdoc ISubscriptionVault
    function trigger(uint256 id, string calldata metadataUri)
        external
        nonReentrant
        whenNotPaused
        returns (uint256 runId)
    {
        Subscription storage sub = _live(id);
        address subscriber = sub.subscriber;
        _checkSubscriberOrRelayer(subscriber);
        (uint256 amount, uint48 dueAt, uint256 refund) = _book(id, sub);
        runId = _sponsor(sub, amount, metadataUri);
        emit RunTriggered(id, runId, dueAt, amount, sub.runsCreated);
        if (sub.status == Status.Completed) {
            emit SubscriptionCompleted(id, refund);
            if (refund != 0) usdc.safeTransfer(subscriber, refund);
        }
    }

    // ---------------------------------------------------------------- subscriber (or relayer for the subscriber)

    /// @inheritdoc ISubscriptionVault
    function pauseSubscription(uint256 id) external {
        Subscription storage sub = _live(id);
        _checkSubscriberOrRelayer(sub.subscriber);
        if (sub.status != Status.Active) revert SubscriptionVaultInvalidStatus(id, sub.status);
        sub.status = Status.Paused;
        emit SubscriptionPaused(id);
    }

    /// @inheritdoc ISubscriptionVault
    /// @dev Slots missed while paused are not replayed: the next run is due at max(scheduled, now).
    function resumeSubscription(uint256 id) external {
        Subscription storage sub = _live(id);
        _checkSubscriberOrRelayer(sub.subscriber);
        if (sub.status != Status.Paused) revert SubscriptionVaultInvalidStatus(id, sub.status);
        sub.status = Status.Active;
        if (sub.nextRunAt < block.timestamp) sub.nextRunAt = uint48(block.timestamp);
        emit SubscriptionResumed(id, sub.nextRunAt);
    }

    /// @inheritdoc ISubscriptionVault
    function cancelSubscription(uint256 id) external nonReentrant whenNotPaused {
        Subscription storage sub = _live(id);
        address subscriber = sub.subscriber;
        _checkSubscriberOrRelayer(subscriber);
        Status status = sub.status;
        if (status != Status.Active && status != Status.Paused) revert SubscriptionVaultInvalidStatus(id, status);
        uint256 refund = sub.balance;
        sub.status = Status.Cancelled;
        sub.balance = 0;
        _totalHeld -= refund;
        emit SubscriptionCancelled(id, refund);
        if (refund != 0) usdc.safeTransfer(subscriber, refund);
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc ISubscriptionVault
    function getSubscription(uint256 id) external view returns (Subscription memory) {
        return _subscriptions[id];
    }

    /// @inheritdoc ISubscriptionVault
    function costPerRun(uint256 id) external view returns (uint256) {
        uint256 reward = _subscriptions[id].rewardPerRun;
        return reward + _fee(reward);
    }

    /// @inheritdoc ISubscriptionVault
    function balanceOf(uint256 id) external view returns (uint256) {
        return _subscriptions[id].balance;
    }

    /// @inheritdoc ISubscriptionVault
    function totalHeld() external view returns (uint256) {
        return _totalHeld;
    }

    /// @inheritdoc ISubscriptionVault
    function subscriptionCount() external view returns (uint256) {
        return _count;
    }

    /// @notice The EIP-712 domain separator of {Subscribe} signatures.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    // ---------------------------------------------------------------- internals

    function _open(Terms calldata terms, uint256 amount) private returns (uint256 id) {
        if (terms.subscriber == address(0)) revert SubscriptionVaultZeroAddress();
        if (terms.rewardPerRun == 0) revert SubscriptionVaultInvalidTerms();
        if (terms.interval < MIN_INTERVAL) revert SubscriptionVaultInvalidTerms();
        if (terms.runDuration < MIN_RUN_DURATION || terms.runDuration > MAX_RUN_DURATION) {
            revert SubscriptionVaultInvalidTerms();
        }
        id = ++_count;
        uint48 startsAt = terms.startsAt < block.timestamp ? uint48(block.timestamp) : terms.startsAt;
        _subscriptions[id] = Subscription({
            subscriber: terms.subscriber,
            nextRunAt: startsAt,
            status: Status.Active,
            maxRevisions: terms.maxRevisions,
            interval: terms.interval,
            rewardPerRun: terms.rewardPerRun,
            totalRuns: terms.totalRuns,
            runsCreated: 0,
            runDuration: terms.runDuration,
            balance: 0
        });
        emit SubscriptionOpened(
            id,
            terms.subscriber,
            terms.rewardPerRun,
            terms.interval,
            startsAt,
            terms.totalRuns,
            terms.runDuration,
            terms.maxRevisions
        );
        _fund(id, terms.subscriber, amount);
    }

    /// @dev Pulls `amount` from `payer` into subscription `id` (live: active or paused).
    function _fund(uint256 id, address payer, uint256 amount) private {
        Subscription storage sub = _live(id);
        Status status = sub.status;
        if (status != Status.Active && status != Status.Paused) revert SubscriptionVaultInvalidStatus(id, status);
        if (amount == 0) revert SubscriptionVaultZeroAmount();
        uint256 reward = sub.rewardPerRun;
        uint256 perRun = reward + _fee(reward);
        // An exhausted subscription that becomes able to pay starts again now, not with a burst of missed slots.
        if (sub.balance < perRun && sub.nextRunAt < block.timestamp) sub.nextRunAt = uint48(block.timestamp);
        uint256 balance = sub.balance + amount;
        sub.balance = balance.toUint128();
        _totalHeld += amount;
        emit SubscriptionFunded(id, payer, amount, balance);
        usdc.safeTransferFrom(payer, address(this), amount);
    }

    /// @dev Checks that a run of `sub` is due and paid for, then books it: one more run, the next slot one interval
    /// later, reward + fee off the balance; the last run of a bounded schedule completes it and releases the leftover.
    function _book(uint256 id, Subscription storage sub) private returns (uint256 amount, uint48 dueAt, uint256 refund) {
        if (sub.status != Status.Active) revert SubscriptionVaultInvalidStatus(id, sub.status);
        dueAt = sub.nextRunAt;
        if (block.timestamp < dueAt) revert SubscriptionVaultNotDue(id, dueAt);
        uint256 reward = sub.rewardPerRun;
        amount = reward + _fee(reward);
        uint256 balance = sub.balance;
        if (balance < amount) revert SubscriptionVaultInsufficientBalance(id, balance, amount);

        uint32 created = sub.runsCreated + 1;
        sub.runsCreated = created;
        sub.nextRunAt = dueAt + sub.interval;
        balance -= amount;
        if (sub.totalRuns != 0 && created == sub.totalRuns) {
            sub.status = Status.Completed;
            refund = balance;
            balance = 0;
        }
        sub.balance = uint128(balance);
        _totalHeld -= amount + refund;
    }

    /// @dev Creates the run in the escrow, which must pull exactly `amount` (reward + fee) from this vault.
    function _sponsor(Subscription storage sub, uint256 amount, string calldata metadataUri)
        private
        returns (uint256 runId)
    {
        usdc.forceApprove(address(escrow), amount);
        uint256 before = usdc.balanceOf(address(this));
        runId = escrow.createSponsoredRun(
            sub.subscriber, sub.rewardPerRun, uint64(block.timestamp + sub.runDuration), sub.maxRevisions, metadataUri
        );
        if (before - usdc.balanceOf(address(this)) != amount) revert SubscriptionVaultEscrowMismatch();
    }

    /// @dev The escrow's fee on `reward` at its current rate, rounded up as the escrow rounds it.
    function _fee(uint256 reward) private view returns (uint256) {
        return (reward * escrow.feeBps() + 9_999) / 10_000;
    }

    function _live(uint256 id) private view returns (Subscription storage sub) {
        sub = _subscriptions[id];
        if (sub.status == Status.None) revert SubscriptionVaultUnknown(id);
    }

    function _checkSubscriberOrRelayer(address subscriber) private view {
        if (_msgSender() != subscriber && !hasRole(RELAYER_ROLE, _msgSender())) {
            revert SubscriptionVaultUnauthorized(_msgSender());
        }
    }
}
