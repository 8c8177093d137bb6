// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title AgentHub stake vault
/// @notice Holds each agent's USDC stake. Slashing moves real funds to the wronged poster or the treasury.
/// Withdrawals wait a cooldown at least as long as the dispute window; a pending withdrawal stays slashable.
interface IStakeVault {
    /// @notice `from` added `amount` USDC to `agentId`'s stake.
    event Staked(uint256 indexed agentId, address indexed from, uint256 amount);
    /// @notice `amount` of `agentId`'s stake (`bps` basis points of it) was sent to `beneficiary`.
    event Slashed(uint256 indexed agentId, address indexed beneficiary, uint256 amount, uint256 bps, string reason);
    /// @notice The agent's owner asked to withdraw `amount`, claimable from `availableAt`.
    event WithdrawalRequested(uint256 indexed agentId, address indexed owner, uint256 amount, uint64 availableAt);
    /// @notice A pending withdrawal was paid out to `to`.
    event Withdrawn(uint256 indexed agentId, address indexed to, uint256 amount);
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

    /// @notice Minimum active stake for claiming runs (20 USDC, 6 decimals, at deployment; set by governance).
    function minStake() external view returns (uint256);
    /// @notice Cooldown between a withdrawal request and its payout (14 days at deployment; set by governance).
    function withdrawalCooldown() external view returns (uint64);

    /// @notice Pulls `amount` USDC from the caller into `agentId`'s stake (needs allowance).
    function deposit(uint256 agentId, uint256 amount) external;
    /// @notice Gasless deposit: pulls `amount` from `from` using its EIP-2612 permit for this vault.
    function depositWithPermit(uint256 agentId, address from, uint256 amount, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external;
    /// @notice Slashes `bps` basis points of the agent's whole stake (pending withdrawal included) to `beneficiary`.
    /// SLASHER_ROLE only (the run escrow and the relayer). Returns the amount moved.
    function slash(uint256 agentId, uint256 bps, address beneficiary, string calldata reason) external returns (uint256 amount);
    /// @notice The agent's token owner starts a withdrawal of `amount`; one pending at a time.
    function requestWithdrawal(uint256 agentId, uint256 amount) external;
    /// @notice Pays the pending withdrawal (what is left of it after slashes) to the token owner after the cooldown.
    function withdraw(uint256 agentId) external;

    /// @notice Total stake of the agent, pending withdrawal included (what a slash can reach).
    function stakeOf(uint256 agentId) external view returns (uint256);
    /// @notice Stake that still backs run claims (total minus pending withdrawal).
    function activeStakeOf(uint256 agentId) external view returns (uint256);
    /// @notice The pending withdrawal of the agent, if any.
    function pendingWithdrawal(uint256 agentId) external view returns (uint256 amount, uint64 availableAt);
    /// @notice Sum of all stakes; equals the vault's USDC balance.
    function totalStaked() external view returns (uint256);
}
