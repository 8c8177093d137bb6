// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title AgentHub insurance pool
/// @notice Agents (their token owners) stake USDC as coverage. A run's cover (agreed damages) is one of its terms,
/// fixed when the poster funds it in the run escrow ({IRunEscrow-coverOf}); when an agent verifiably fails the run (per the run escrow's `failureOf`:
/// a timeout or a lost dispute, not a rejection) the poster claims min(cover - stake slashed to it for that failure,
/// coverage) against that agent's coverage, once per run.
interface IInsurancePool {
    event CoverageStaked(uint256 indexed agentId, address indexed from, uint256 amount);
    event CoverageWithdrawalRequested(uint256 indexed agentId, uint256 amount, uint64 availableAt);
    event CoverageWithdrawn(uint256 indexed agentId, address indexed to, uint256 amount);
    event ClaimPaid(uint256 indexed runId, uint256 indexed agentId, address indexed poster, uint256 amount);
    /// @notice Withdrawals requested from now on wait `cooldown` seconds.
    event WithdrawalCooldownUpdated(uint64 cooldown);

    error InsurancePoolZeroAmount();
    error InsurancePoolUnauthorized(address caller);
    error InsurancePoolNoFailure(uint256 runId);
    error InsurancePoolAlreadyClaimed(uint256 runId);
    /// @notice The run's failure is a rejection: the poster's own call, already refunded in full.
    error InsurancePoolLossNotVerified(uint256 runId);
    /// @notice The stake slashed to the poster already covers the run's value.
    error InsurancePoolNoLoss(uint256 runId);
    /// @notice The run's poster declared no cover: insurance pays agreed damages only, never the refunded deposit.
    error InsurancePoolNoCoverDeclared(uint256 runId);
    error InsurancePoolNoCoverage(uint256 agentId);
    error InsurancePoolWithdrawalPending(uint256 agentId);
    error InsurancePoolNoWithdrawal(uint256 agentId);
    error InsurancePoolCooldownActive(uint256 agentId, uint64 availableAt);
    error InsurancePoolInsufficientCoverage(uint256 agentId, uint256 available, uint256 requested);
    error InsurancePoolInvalidCooldown(uint64 cooldown);
    /// @dev The agent holds runs (claimed, in progress, submitted, in revision or disputed): its coverage backs them.
    error InsurancePoolAgentHoldsRuns(uint256 agentId, uint256 runsHeld);
    /// @dev The agent failed a run recently: its posters may claim until `until`.
    error InsurancePoolClaimWindowOpen(uint256 agentId, uint256 until);

    /// @notice Cooldown between a withdrawal request and its payout (14 days at deployment; set by governance).
    function withdrawalCooldown() external view returns (uint64);

    /// @notice Pulls `amount` USDC from the caller into `agentId`'s coverage.
    function stake(uint256 agentId, uint256 amount) external;
    /// @notice Gasless variant with the payer's EIP-2612 permit.
    function stakeWithPermit(uint256 agentId, address from, uint256 amount, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external;
    /// @notice The agent's token owner (or the relayer for it) asks to withdraw; claimable after the cooldown.
    function requestWithdrawal(uint256 agentId, uint256 amount) external;
    /// @notice Pays the pending withdrawal (less any claims paid meanwhile) to the token owner; refused while the agent
    /// holds runs and for {CLAIM_WINDOW} after its last verified failure, so the posters it failed can claim first.
    function withdraw(uint256 agentId) external;
    /// @notice The run's poster claims for a verified failure: pays min(declared cover - stake already slashed to the
    /// poster for that failure, the agent's coverage) to the poster, once per run.
    function claim(uint256 runId) external returns (uint256 paid);

    function coverageOf(uint256 agentId) external view returns (uint256);
    function hasCoverage(uint256 agentId, uint256 requiredAmount) external view returns (bool);
    function pendingWithdrawal(uint256 agentId) external view returns (uint256 amount, uint64 availableAt);
    /// @notice Sum of all agents' coverage; equals the pool's USDC balance.
    function totalCoverage() external view returns (uint256);
    /// @notice Whether the poster of `runId` already claimed (one payout per run).
    function isClaimed(uint256 runId) external view returns (bool);
}
