// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {IStakeVault} from "./interfaces/IStakeVault.sol";
import {RolePausable} from "./utils/RolePausable.sol";
import {TransientReentrancyGuard} from "./utils/TransientReentrancyGuard.sol";

/// @title AgentHub stake vault
/// @notice Holds each agent's USDC stake. The agent's token owner (or the relayer on its behalf) withdraws
/// after a cooldown; SLASHER_ROLE (the run escrow, the relayer) slashes, moving real funds.
/// The minimum stake, the cooldown and the treasury change only through DEFAULT_ADMIN_ROLE (the governance
/// timelock); PAUSER_ROLE (the emergency Safe and the timelock) stops every USDC movement: deposits, slashes and
/// withdrawals.
/// @dev Invariant: `usdc.balanceOf(this) == totalStaked() == sum of stakeOf(agentId)`.
contract StakeVault is RolePausable, TransientReentrancyGuard, IStakeVault {
    using SafeERC20 for IERC20;
    using SafeCast for uint256;

    /// @notice May slash stakes: the run escrow and the relayer.
    bytes32 public constant SLASHER_ROLE = keccak256("SLASHER_ROLE");
    /// @notice May request and execute withdrawals (always paid to the token owner) and submit permit deposits.
    bytes32 public constant RELAYER_ROLE = keccak256("RELAYER_ROLE");

    /// @notice Lowest minimum stake governance may set: 1 USDC.
    uint256 public constant MIN_STAKE_LOWER_BOUND = 1e6;
    /// @notice Highest minimum stake governance may set: 1,000,000 USDC.
    uint256 public constant MIN_STAKE_UPPER_BOUND = 1_000_000e6;
    /// @notice Shortest withdrawal cooldown governance may set: the escrow's longest claim timeout, so a stake
    /// backing a claim stays slashable until the claim times out.
    uint64 public constant MIN_WITHDRAWAL_COOLDOWN = 7 days;
    /// @notice Longest withdrawal cooldown governance may set.
    uint64 public constant MAX_WITHDRAWAL_COOLDOWN = 90 days;

    uint256 private constant _MAX_BPS = 10_000;

    /// @dev One storage word per agent. `total` includes `pending`; `availableAt` is 0 iff nothing is pending.
    struct StakeInfo {
        uint104 total;
        uint104 pending;
        uint48 availableAt;
    }

    /// @notice The staked token (USDC).
    IERC20 public immutable usdc;
    /// @notice The agent identity registry; the owner of token `agentId` owns that agent's stake.
    IERC721 public immutable identity;
    /// @notice Receives slashes that name no beneficiary.
    address public treasury;
    /// @inheritdoc IStakeVault
    uint64 public withdrawalCooldown;
    /// @inheritdoc IStakeVault
    uint256 public minStake;

    uint256 private _totalStaked;
    mapping(uint256 agentId => StakeInfo) private _stakes;

    constructor(IERC20 usdc_, IERC721 identity_, address admin, address treasury_) {
        if (
            address(usdc_) == address(0) || address(identity_) == address(0) || admin == address(0)
                || treasury_ == address(0)
        ) revert StakeVaultZeroAddress();
        usdc = usdc_;
        identity = identity_;
        treasury = treasury_;
        withdrawalCooldown = 14 days;
        minStake = 20e6;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        emit TreasuryUpdated(treasury_);
        emit WithdrawalCooldownUpdated(14 days);
        emit MinStakeUpdated(20e6);
    }

    /// @inheritdoc IStakeVault
    function deposit(uint256 agentId, uint256 amount) external nonReentrant whenNotPaused {
        _deposit(agentId, _msgSender(), amount);
    }

    /// @inheritdoc IStakeVault
    /// @dev Callable by `from` itself or the relayer: the permit does not name the agent, so anyone else could
    /// otherwise redirect `from`'s permit (or standing allowance) into a stake they control. A failing permit
    /// (e.g. already used by a front-runner) is ignored; the transfer then needs the allowance to be in place.
    function depositWithPermit(
        uint256 agentId,
        address from,
        uint256 amount,
        uint256 deadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external nonReentrant whenNotPaused {
        if (_msgSender() != from && !hasRole(RELAYER_ROLE, _msgSender())) {
            revert StakeVaultUnauthorized(_msgSender(), agentId);
        }
        try IERC20Permit(address(usdc)).permit(from, address(this), amount, deadline, v, r, s) {} catch {}
        _deposit(agentId, from, amount);
    }

    /// @inheritdoc IStakeVault
    function slash(uint256 agentId, uint256 bps, address beneficiary, string calldata reason)
        external
        nonReentrant
        whenNotPaused
        onlyRole(SLASHER_ROLE)
        returns (uint256 amount)
    {
        if (bps == 0 || bps > _MAX_BPS) revert StakeVaultInvalidBps(bps);
        if (beneficiary == address(0)) beneficiary = treasury;

        StakeInfo memory info = _stakes[agentId];
        amount = uint256(info.total) * bps / _MAX_BPS;
        uint104 remaining = info.total - uint104(amount);
        info.total = remaining;
        if (info.pending > remaining) {
            info.pending = remaining;
            if (remaining == 0) info.availableAt = 0;
        }
        _stakes[agentId] = info;
        _totalStaked -= amount;

        emit Slashed(agentId, beneficiary, amount, bps, reason);
        if (amount != 0) usdc.safeTransfer(beneficiary, amount);
    }

    /// @inheritdoc IStakeVault
    function requestWithdrawal(uint256 agentId, uint256 amount) external nonReentrant {
        if (amount == 0) revert StakeVaultZeroAmount();
        address owner = _checkOwnerOrRelayer(agentId);
        StakeInfo memory info = _stakes[agentId];
        if (info.pending != 0) revert StakeVaultWithdrawalPending(agentId);
        if (amount > info.total) revert StakeVaultInsufficientStake(agentId, info.total, amount);

        uint48 availableAt = uint48(block.timestamp) + uint48(withdrawalCooldown);
        info.pending = uint104(amount);
        info.availableAt = availableAt;
        _stakes[agentId] = info;
        emit WithdrawalRequested(agentId, owner, amount, availableAt);
    }

    /// @inheritdoc IStakeVault
    function withdraw(uint256 agentId) external nonReentrant whenNotPaused {
        address owner = _checkOwnerOrRelayer(agentId);
        StakeInfo memory info = _stakes[agentId];
        uint256 amount = info.pending;
        if (amount == 0) revert StakeVaultNoWithdrawal(agentId);
        if (block.timestamp < info.availableAt) revert StakeVaultCooldownActive(agentId, info.availableAt);

        _stakes[agentId] = StakeInfo({total: info.total - info.pending, pending: 0, availableAt: 0});
        _totalStaked -= amount;
        emit Withdrawn(agentId, owner, amount);
        usdc.safeTransfer(owner, amount);
    }

    /// @notice Sets the address receiving slashes that name no beneficiary. Admin (governance) only.
    function setTreasury(address newTreasury) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (newTreasury == address(0)) revert StakeVaultZeroAddress();
        treasury = newTreasury;
        emit TreasuryUpdated(newTreasury);
    }

    /// @notice Sets the stake an agent needs to claim runs (MIN_STAKE_LOWER_BOUND..MIN_STAKE_UPPER_BOUND).
    /// Admin (governance) only.
    function setMinStake(uint256 amount) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (amount < MIN_STAKE_LOWER_BOUND || amount > MIN_STAKE_UPPER_BOUND) revert StakeVaultInvalidMinStake(amount);
        minStake = amount;
        emit MinStakeUpdated(amount);
    }

    /// @notice Sets the cooldown of withdrawals requested from now on (MIN_WITHDRAWAL_COOLDOWN..
    /// MAX_WITHDRAWAL_COOLDOWN); pending requests keep their date. Admin (governance) only.
    function setWithdrawalCooldown(uint64 cooldown) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (cooldown < MIN_WITHDRAWAL_COOLDOWN || cooldown > MAX_WITHDRAWAL_COOLDOWN) {
            revert StakeVaultInvalidCooldown(cooldown);
        }
        withdrawalCooldown = cooldown;
        emit WithdrawalCooldownUpdated(cooldown);
    }

    /// @inheritdoc IStakeVault
    function stakeOf(uint256 agentId) external view returns (uint256) {
        return _stakes[agentId].total;
    }

    /// @inheritdoc IStakeVault
    function activeStakeOf(uint256 agentId) external view returns (uint256) {
        StakeInfo memory info = _stakes[agentId];
        return info.total - info.pending;
    }

    /// @inheritdoc IStakeVault
    function pendingWithdrawal(uint256 agentId) external view returns (uint256 amount, uint64 availableAt) {
        StakeInfo memory info = _stakes[agentId];
        return (info.pending, info.availableAt);
    }

    /// @inheritdoc IStakeVault
    function totalStaked() external view returns (uint256) {
        return _totalStaked;
    }

    function _deposit(uint256 agentId, address from, uint256 amount) private {
        if (amount == 0) revert StakeVaultZeroAmount();
        _ownerOfAgent(agentId);
        StakeInfo storage info = _stakes[agentId];
        info.total = (uint256(info.total) + amount).toUint104();
        _totalStaked += amount;
        emit Staked(agentId, from, amount);
        usdc.safeTransferFrom(from, address(this), amount);
    }

    /// @dev The owner of `agentId`; reverts unless the caller is that owner or holds RELAYER_ROLE.
    function _checkOwnerOrRelayer(uint256 agentId) private view returns (address owner) {
        owner = _ownerOfAgent(agentId);
        if (_msgSender() != owner && !hasRole(RELAYER_ROLE, _msgSender())) {
            revert StakeVaultUnauthorized(_msgSender(), agentId);
        }
    }

    /// @dev The owner of `agentId`, reverting with {StakeVaultUnknownAgent} for ids never minted.
    function _ownerOfAgent(uint256 agentId) private view returns (address) {
        try identity.ownerOf(agentId) returns (address owner) {
            return owner;
        } catch {
            revert StakeVaultUnknownAgent(agentId);
        }
    }
}
