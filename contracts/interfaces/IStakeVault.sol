// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title AgentHub stake vault
/// @notice Holds each agent's USDC stake and its trust state. Slashing moves real funds to the wronged poster or
/// the treasury and freezes the agent (the third slash bans it); a frozen agent is unfrozen by staking back to the
/// minimum, a banned one never. While the agent holds runs its minimum stake is locked. Withdrawals wait a cooldown
/// at least as long as the dispute window; a pending withdrawal stays slashable.
/// @notice The escrow whose live runs lock agents' stakes (the vault asks it on withdrawals).
interface IStakeLocks {
    /// @notice How many runs `agentId` holds (claimed and not yet ended).
    function liveRunsOf(uint256 agentId) external view returns (uint256);
}

interface IStakeVault {
    /// @notice What blocks an agent from work. `Good`: nothing; `Frozen`: slashed, until it stakes back to the
    /// minimum; `Banned`: permanent (third slash, or governance).
    enum TrustState {
        Good,
        Frozen,
        Banned
    }

    /// @notice Governance named the escrow whose live runs lock stakes.
    event RunEscrowUpdated(address escrow);
    /// @notice `from` added `amount` USDC to `agentId`'s stake.
    event Staked(uint256 indexed agentId, address indexed from, uint256 amount);
    /// @notice `amount` of `agentId`'s stake (`bps` basis points of it) was sent (or credited) to `beneficiary`.
    event Slashed(uint256 indexed agentId, address indexed beneficiary, uint256 amount, uint256 bps, string reason);
    /// @notice The agent's trust state changed; `strikes` counts its slashes so far.
    event TrustStateChanged(uint256 indexed agentId, TrustState state, uint256 strikes, string reason);
    /// @notice The agent's owner asked to withdraw `amount`, claimable from `availableAt`.
    event WithdrawalRequested(uint256 indexed agentId, address indexed owner, uint256 amount, uint64 availableAt);
    /// @notice A pending withdrawal was paid out to `to`.
    event Withdrawn(uint256 indexed agentId, address indexed to, uint256 amount);
    /// @notice A payment to `to` failed (e.g. a USDC-blacklisted address) and was credited for {withdrawCredit}.
    event PaymentDeferred(address indexed to, uint256 amount);
    /// @notice A deferred payment was paid out.
    event CreditWithdrawn(address indexed to, uint256 amount);
    /// @notice The treasury address changed.
    event TreasuryUpdated(address treasury);
    /// @notice Claiming runs now needs `amount` of active stake.
    event MinStakeUpdated(uint256 amount);
    /// @notice Withdrawals requested from now on wait `cooldown` seconds.
    event WithdrawalCooldownUpdated(uint64 cooldown);

    error StakeVaultZeroAmount();
    error StakeVaultUnauthorized(address caller, uint256 agentId);
    error StakeVaultInvalidBps(uint256 bps);
    error StakeVaultInsufficientStake(uint256 agentId, uint256 available, uint256 requested);
    error StakeVaultWithdrawalPending(uint256 agentId);
    error StakeVaultNoWithdrawal(uint256 agentId);
    error StakeVaultCooldownActive(uint256 agentId, uint64 availableAt);
    error StakeVaultUnknownAgent(uint256 agentId);
    error StakeVaultZeroAddress();
    error StakeVaultInvalidMinStake(uint256 amount);
    error StakeVaultInvalidCooldown(uint64 cooldown);
    /// @notice The agent is frozen (slashed and not staked back to the minimum): it cannot take work.
    error StakeVaultAgentFrozen(uint256 agentId);
    /// @notice The agent is banned: it can neither take work nor stake.
    error StakeVaultAgentBanned(uint256 agentId);
    /// @notice The agent holds runs: its stake cannot go below the minimum until they end.
    error StakeVaultStakeLocked(uint256 agentId, uint256 locks);
    /// @notice A slash by SLASHER_ROLE must say why.
    error StakeVaultReasonRequired();
    /// @notice SLASHER_ROLE already used its slashes of the current period; retry after `retryAt`.
    error StakeVaultSlashRateLimited(uint64 retryAt);
    /// @notice Nothing is credited to the account.
    error StakeVaultNoCredit(address account);

    /// @notice Minimum active stake for claiming runs, locked while the agent holds runs (20 USDC, 6 decimals, at
    /// deployment; set by governance).
    function minStake() external view returns (uint256);
    /// @notice Cooldown between a withdrawal request and its payout (14 days at deployment; set by governance).
    function withdrawalCooldown() external view returns (uint64);

    /// @notice Pulls `amount` USDC from the caller into `agentId`'s stake (needs allowance). Refused for banned
    /// agents; unfreezes a frozen agent whose active stake reaches the minimum.
    function deposit(uint256 agentId, uint256 amount) external;
    /// @notice Gasless deposit: pulls `amount` from `from` using its EIP-2612 permit for this vault.
    function depositWithPermit(uint256 agentId, address from, uint256 amount, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external;
    /// @notice SLASHER_ROLE (moderation) slashes `bps` basis points of the agent's whole stake (pending withdrawal
    /// included) to the treasury, with a reason, at most MAX_SLASHES_PER_PERIOD times per SLASH_PERIOD. Counts a
    /// strike (freeze; the third bans). Returns the amount moved.
    function slash(uint256 agentId, uint256 bps, string calldata reason) external returns (uint256 amount);
    /// @notice Reverts unless the agent may take a run: a good trust state and at least {minStake} active. The
    /// escrow asks it on every claim; the claim then locks the minimum stake until the run ends ({runEscrow}).
    function checkClaimable(uint256 agentId) external view;
    /// @notice ESCROW_ROLE: a run the agent held ended by its verified fault (timeout, lost dispute): slashes `bps`
    /// of the stake to `beneficiary` (the run's poster) and counts a strike.
    function slashForRun(uint256 agentId, uint256 bps, address beneficiary, string calldata reason)
        external
        returns (uint256 amount);
    /// @notice Governance bans an agent permanently.
    function ban(uint256 agentId, string calldata reason) external;
    /// @notice The agent's token owner starts a withdrawal of `amount`; one pending at a time. While the agent holds
    /// runs, the stake left must stay at least {minStake}.
    function requestWithdrawal(uint256 agentId, uint256 amount) external;
    /// @notice Pays the pending withdrawal (what is left of it after slashes) to the token owner after the cooldown;
    /// refused while the agent holds runs and the payout would take its stake below {minStake}.
    function withdraw(uint256 agentId) external;
    /// @notice Pays `account` what failed payments credited to it (anyone may trigger it; the money goes to `account`).
    function withdrawCredit(address account) external;

    /// @notice Total stake of the agent, pending withdrawal included (what a slash can reach).
    function stakeOf(uint256 agentId) external view returns (uint256);
    /// @notice Stake that still backs run claims (total minus pending withdrawal).
    function activeStakeOf(uint256 agentId) external view returns (uint256);
    /// @notice The pending withdrawal of the agent, if any.
    function pendingWithdrawal(uint256 agentId) external view returns (uint256 amount, uint64 availableAt);
    /// @notice The agent's trust state and how many times it was slashed.
    function trustOf(uint256 agentId) external view returns (TrustState state, uint256 strikes);
    /// @notice How many runs the agent holds ({runEscrow}'s live runs; any number locks the minimum stake).
    function locksOf(uint256 agentId) external view returns (uint256);
    /// @notice The escrow whose live runs lock stakes (set by governance).
    function runEscrow() external view returns (IStakeLocks);
    /// @notice What failed payments credited to `account`.
    function creditOf(address account) external view returns (uint256);
    /// @notice Sum of all stakes.
    function totalStaked() external view returns (uint256);
    /// @notice Sum of all credits. `usdc.balanceOf(vault) == totalStaked() + totalCredits()`.
    function totalCredits() external view returns (uint256);
}
