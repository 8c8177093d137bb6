// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title AgentHub subscription vault
/// @notice Prepaid USDC per subscription, spent only on runs at the cadence and terms the subscriber signed.
interface ISubscriptionVault {
    /// @notice Stored state. EXHAUSTED is not stored: an Active subscription whose balance is below one run's cost.
    enum Status {
        None,
        Active,
        Paused,
        Completed,
        Cancelled
    }

    /// @notice What the subscriber agrees to (signed as EIP-712 `Subscribe` with the amount, a nonce and a deadline).
    struct Terms {
        address subscriber;
        /// @notice Each run's reward (USDC base units); the escrow's fee is added on top.
        uint96 rewardPerRun;
        /// @notice Seconds between runs (at least 1 hour).
        uint32 interval;
        /// @notice First run (unix seconds; a past time means now).
        uint48 startsAt;
        /// @notice Runs in all; 0 = open-ended (until the balance is spent or the subscription cancelled).
        uint32 totalRuns;
        /// @notice Each run's deadline: its creation + runDuration.
        uint32 runDuration;
        uint8 maxRevisions;
    }

    // Three words: (subscriber, nextRunAt, status, maxRevisions, interval), (rewardPerRun, totalRuns, runsCreated,
    // runDuration), (balance).
    // solhint-disable-next-line gas-struct-packing
    struct Subscription {
        address subscriber;
        uint48 nextRunAt;
        Status status;
        uint8 maxRevisions;
        uint32 interval;
        uint96 rewardPerRun;
        uint32 totalRuns;
        uint32 runsCreated;
        uint32 runDuration;
        uint128 balance;
    }

    event SubscriptionOpened(
        uint256 indexed id,
        address indexed subscriber,
        uint96 rewardPerRun,
        uint32 interval,
        uint48 startsAt,
        uint32 totalRuns,
        uint32 runDuration,
        uint8 maxRevisions
    );
    /// @notice `amount` from `payer` credited to subscription `id`, whose balance is now `balance`.
    event SubscriptionFunded(uint256 indexed id, address indexed payer, uint256 amount, uint256 balance);
    /// @notice Run `runNumber` (1-based) of subscription `id`, due at `scheduledFor`, is escrow run `runId`, paid
    /// `amount` (reward + fee) from the subscription's balance.
    event RunTriggered(uint256 indexed id, uint256 indexed runId, uint48 scheduledFor, uint256 amount, uint32 runNumber);
    event SubscriptionPaused(uint256 indexed id);
    event SubscriptionResumed(uint256 indexed id, uint48 nextRunAt);
    /// @notice Cancelled; `refund` went back to the subscriber.
    event SubscriptionCancelled(uint256 indexed id, uint256 refund);
    /// @notice The last run of a bounded schedule was created; `refund` (any leftover) went back to the subscriber.
    event SubscriptionCompleted(uint256 indexed id, uint256 refund);

    error SubscriptionVaultZeroAddress();
    error SubscriptionVaultZeroAmount();
    error SubscriptionVaultInvalidTerms();
    error SubscriptionVaultUnknown(uint256 id);
    error SubscriptionVaultUnauthorized(address caller);
    error SubscriptionVaultInvalidSignature(address subscriber);
    error SubscriptionVaultExpiredSignature(uint256 deadline);
    error SubscriptionVaultInvalidStatus(uint256 id, Status status);
    error SubscriptionVaultNotDue(uint256 id, uint48 dueAt);
    error SubscriptionVaultInsufficientBalance(uint256 id, uint256 balance, uint256 needed);
    error SubscriptionVaultEscrowMismatch();

    /// @notice Opens a subscription as `terms.subscriber` (the caller) and funds it with `amount` (allowance needed).
    function open(Terms calldata terms, uint256 amount) external returns (uint256 id);

    /// @notice Opens a subscription for `terms.subscriber` from its EIP-712 `Subscribe` signature and a USDC permit for
    /// `amount` to this vault; anyone may submit.
    function openWithPermit(
        Terms calldata terms,
        uint256 amount,
        uint256 deadline,
        bytes calldata signature,
        uint256 permitDeadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external returns (uint256 id);

    /// @notice Adds `amount` from the caller to subscription `id` (active or paused).
    function topUp(uint256 id, uint256 amount) external;

    /// @notice Adds `amount` from the subscriber by USDC permit (the subscriber or the relayer submits).
    function topUpWithPermit(uint256 id, uint256 amount, uint256 permitDeadline, uint8 v, bytes32 r, bytes32 s) external;

    /// @notice Creates the due run of subscription `id` in the escrow (subscriber or relayer): poster = subscriber,
    /// the signed reward, revisions and run duration; reward + fee from the subscription's balance.
    function trigger(uint256 id, string calldata metadataUri) external returns (uint256 runId);

    /// @notice Active -> Paused: no run can be triggered.
    function pauseSubscription(uint256 id) external;

    /// @notice Paused -> Active; the next run is due at max(scheduled, now).
    function resumeSubscription(uint256 id) external;

    /// @notice Active or Paused -> Cancelled; the balance goes back to the subscriber.
    function cancelSubscription(uint256 id) external;

    function getSubscription(uint256 id) external view returns (Subscription memory);

    /// @notice Reward + the escrow's current fee for one run of subscription `id`.
    function costPerRun(uint256 id) external view returns (uint256);

    function balanceOf(uint256 id) external view returns (uint256);

    /// @notice Sum of all balances (equals this contract's USDC balance).
    function totalHeld() external view returns (uint256);

    function subscriptionCount() external view returns (uint256);
}
