// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {IStakeLocks, IStakeVault} from "./interfaces/IStakeVault.sol";
import {RolePausable} from "./utils/RolePausable.sol";
import {TransientReentrancyGuard} from "./utils/TransientReentrancyGuard.sol";

/// @title AgentHub stake vault
/// @notice Holds each agent's USDC stake and trust state. The agent's token owner (or the relayer on its behalf)
/// withdraws after a cooldown; the run escrow ({runEscrow}) locks the minimum stake while the agent holds runs, and
/// (ESCROW_ROLE) slashes it to the poster on a verified failure; moderation (SLASHER_ROLE) slashes to the treasury with a reason,
/// rate limited; governance (DEFAULT_ADMIN_ROLE) bans. Every slash is a strike: frozen, the third one banned.
/// The minimum stake, the cooldown and the treasury change only through DEFAULT_ADMIN_ROLE (the governance
/// timelock); PAUSER_ROLE (the emergency Safe and the timelock) stops every USDC movement: deposits, slashes,
/// withdrawals and credit payouts.
/// @dev Invariant: `usdc.balanceOf(this) == totalStaked() + totalCredits()`, `totalStaked() == sum of stakeOf`.
/// The lock is the escrow's count of the agent's live runs, kept in the escrow's per-agent word that its claims and
/// run ends write anyway: ending a run costs no call here (a run's approval stays cheap), and a withdrawal asks the
/// escrow instead. The vault only answers, at each claim, whether the agent may take work ({checkClaimable}).
contract StakeVault is RolePausable, TransientReentrancyGuard, IStakeVault {
    using SafeERC20 for IERC20;
    using SafeCast for uint256;

    /// @notice Moderation slashes (to the treasury, with a reason, rate limited).
    bytes32 public constant SLASHER_ROLE = keccak256("SLASHER_ROLE");
    /// @notice The run escrow: slashes stakes to the wronged poster of a run.
    bytes32 public constant ESCROW_ROLE = keccak256("ESCROW_ROLE");
    /// @notice May request and execute withdrawals (always paid to the token owner) and submit permit deposits.
    bytes32 public constant RELAYER_ROLE = keccak256("RELAYER_ROLE");

    /// @notice Lowest minimum stake governance may set: 1 USDC.
    uint256 public constant MIN_STAKE_LOWER_BOUND = 1e6;
    /// @notice Highest minimum stake governance may set: 1,000,000 USDC.
    uint256 public constant MIN_STAKE_UPPER_BOUND = 1_000_000e6;
    /// @notice Shortest withdrawal cooldown governance may set: the escrow's longest claim timeout.
    uint64 public constant MIN_WITHDRAWAL_COOLDOWN = 7 days;
    /// @notice Longest withdrawal cooldown governance may set.
    uint64 public constant MAX_WITHDRAWAL_COOLDOWN = 90 days;
    /// @notice The third slash bans the agent.
    uint256 public constant BAN_AFTER_STRIKES = 3;
    /// @notice Window of the moderation slash rate limit.
    uint64 public constant SLASH_PERIOD = 1 days;
    /// @notice Moderation slashes allowed per window, all SLASHER_ROLE holders together.
    uint256 public constant MAX_SLASHES_PER_PERIOD = 10;

    uint256 private constant _MAX_BPS = 10_000;

    /// @dev One storage word per agent. `total` includes `pending`; `availableAt` is 0 iff nothing is pending.
    struct StakeInfo {
        uint88 total;
        uint88 pending;
        uint48 availableAt;
        uint8 strikes;
        TrustState trust;
    }

    /// @notice The staked token (USDC).
    IERC20 public immutable usdc;
    /// @notice The agent identity registry; the owner of token `agentId` owns that agent's stake.
    IERC721 public immutable identity;
    /// @notice Receives moderation slashes.
    address public treasury;
    /// @inheritdoc IStakeVault
    uint64 public withdrawalCooldown;
    /// @inheritdoc IStakeVault
    uint256 public minStake;
    /// @inheritdoc IStakeVault
    IStakeLocks public runEscrow;

    // One word: the ledger.
    uint128 private _totalStaked;
    uint128 private _totalCredits;
    // One word: the moderation slash window.
    uint48 private _slashWindowStart;
    uint16 private _slashesInWindow;

    mapping(uint256 agentId => StakeInfo) private _stakes;
    mapping(address account => uint256) private _credits;

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

    // ---------------------------------------------------------------- deposits

    /// @inheritdoc IStakeVault
    function deposit(uint256 agentId, uint256 amount) external nonReentrant whenNotPaused {
        _deposit(agentId, _msgSender(), amount);
    }

    /// @inheritdoc IStakeVault
    /// @dev Callable by `from` itself or the relayer: the permit does not name the agent, so anyone else could
    /// otherwise redirect `from`'s permit into a stake they control. The permit must succeed: a failing one (used,
    /// expired, not `from`'s) reverts, so the relayer's role can never spend a standing allowance `from` gave the
    /// vault for its own deposits (a front-run permit fails the call; the payer signs a new one).
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
        IERC20Permit(address(usdc)).permit(from, address(this), amount, deadline, v, r, s);
        _deposit(agentId, from, amount);
    }

    // ---------------------------------------------------------------- slashing and trust

    /// @inheritdoc IStakeVault
    function slash(uint256 agentId, uint256 bps, string calldata reason)
        external
        nonReentrant
        whenNotPaused
        onlyRole(SLASHER_ROLE)
        returns (uint256 amount)
    {
        if (bytes(reason).length == 0) revert StakeVaultReasonRequired();
        uint48 now_ = uint48(block.timestamp);
        uint48 windowStart = _slashWindowStart;
        uint256 used = _slashesInWindow;
        if (now_ >= windowStart + SLASH_PERIOD) {
            windowStart = now_;
            used = 0;
        }
        if (used >= MAX_SLASHES_PER_PERIOD) revert StakeVaultSlashRateLimited(uint64(windowStart) + SLASH_PERIOD);
        (_slashWindowStart, _slashesInWindow) = (windowStart, uint16(used + 1));
        _ownerOfAgent(agentId);
        StakeInfo memory info = _stakes[agentId];
        amount = _slash(agentId, info, bps, treasury, reason);
    }

    /// @inheritdoc IStakeVault
    function checkClaimable(uint256 agentId) external view {
        StakeInfo memory info = _stakes[agentId];
        TrustState trust = info.trust;
        if (trust == TrustState.Frozen) revert StakeVaultAgentFrozen(agentId);
        if (trust == TrustState.Banned) revert StakeVaultAgentBanned(agentId);
        uint256 active = uint256(info.total) - info.pending;
        uint256 minimum = minStake;
        if (active < minimum) revert StakeVaultInsufficientStake(agentId, active, minimum);
    }

    /// @inheritdoc IStakeVault
    function slashForRun(uint256 agentId, uint256 bps, address beneficiary, string calldata reason)
        external
        nonReentrant
        whenNotPaused
        onlyRole(ESCROW_ROLE)
        returns (uint256 amount)
    {
        if (beneficiary == address(0)) revert StakeVaultZeroAddress();
        StakeInfo memory info = _stakes[agentId];
        amount = _slash(agentId, info, bps, beneficiary, reason);
    }

    /// @inheritdoc IStakeVault
    function ban(uint256 agentId, string calldata reason) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (bytes(reason).length == 0) revert StakeVaultReasonRequired();
        _ownerOfAgent(agentId);
        StakeInfo storage info = _stakes[agentId];
        if (info.trust == TrustState.Banned) revert StakeVaultAgentBanned(agentId);
        info.trust = TrustState.Banned;
        emit TrustStateChanged(agentId, TrustState.Banned, info.strikes, reason);
    }

    // ---------------------------------------------------------------- withdrawals

    /// @inheritdoc IStakeVault
    function requestWithdrawal(uint256 agentId, uint256 amount) external nonReentrant {
        if (amount == 0) revert StakeVaultZeroAmount();
        address owner = _checkOwnerOrRelayer(agentId);
        StakeInfo memory info = _stakes[agentId];
        if (info.pending != 0) revert StakeVaultWithdrawalPending(agentId);
        if (amount > info.total) revert StakeVaultInsufficientStake(agentId, info.total, amount);
        _checkUnlocked(agentId, info.total - amount);

        uint48 availableAt = uint48(block.timestamp) + uint48(withdrawalCooldown);
        info.pending = uint88(amount);
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
        _checkUnlocked(agentId, info.total - amount);

        info.total -= uint88(amount);
        info.pending = 0;
        info.availableAt = 0;
        _stakes[agentId] = info;
        _totalStaked -= uint128(amount);
        emit Withdrawn(agentId, owner, amount);
        usdc.safeTransfer(owner, amount);
    }

    /// @inheritdoc IStakeVault
    function withdrawCredit(address account) external nonReentrant whenNotPaused {
        uint256 amount = _credits[account];
        if (amount == 0) revert StakeVaultNoCredit(account);
        _credits[account] = 0;
        _totalCredits -= uint128(amount);
        emit CreditWithdrawn(account, amount);
        usdc.safeTransfer(account, amount);
    }

    // ---------------------------------------------------------------- admin

    /// @notice Sets the address receiving moderation slashes. Admin (governance) only.
    function setTreasury(address newTreasury) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (newTreasury == address(0)) revert StakeVaultZeroAddress();
        treasury = newTreasury;
        emit TreasuryUpdated(newTreasury);
    }

    /// @notice Names the escrow whose live runs lock stakes. Admin (governance) only. A replaced escrow's live runs no
    /// longer lock anything here: governance switches escrows once the old one holds no runs.
    function setRunEscrow(IStakeLocks escrow) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (address(escrow) == address(0)) revert StakeVaultZeroAddress();
        runEscrow = escrow;
        emit RunEscrowUpdated(address(escrow));
    }

    /// @notice Sets the stake an agent needs to claim runs, and that stays locked while it holds runs
    /// (MIN_STAKE_LOWER_BOUND..MIN_STAKE_UPPER_BOUND). Admin (governance) only.
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

    // ---------------------------------------------------------------- views

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
    function trustOf(uint256 agentId) external view returns (TrustState state, uint256 strikes) {
        StakeInfo memory info = _stakes[agentId];
        return (info.trust, info.strikes);
    }

    /// @inheritdoc IStakeVault
    function locksOf(uint256 agentId) public view returns (uint256) {
        IStakeLocks escrow = runEscrow;
        return address(escrow) == address(0) ? 0 : escrow.liveRunsOf(agentId);
    }

    /// @inheritdoc IStakeVault
    function creditOf(address account) external view returns (uint256) {
        return _credits[account];
    }

    /// @inheritdoc IStakeVault
    function totalStaked() external view returns (uint256) {
        return _totalStaked;
    }

    /// @inheritdoc IStakeVault
    function totalCredits() external view returns (uint256) {
        return _totalCredits;
    }

    // ---------------------------------------------------------------- internals

    function _deposit(uint256 agentId, address from, uint256 amount) private {
        if (amount == 0) revert StakeVaultZeroAmount();
        _ownerOfAgent(agentId);
        StakeInfo memory info = _stakes[agentId];
        if (info.trust == TrustState.Banned) revert StakeVaultAgentBanned(agentId);
        info.total = (uint256(info.total) + amount).toUint88();
        bool unfreezes = info.trust == TrustState.Frozen && info.total - info.pending >= minStake;
        if (unfreezes) info.trust = TrustState.Good;
        _stakes[agentId] = info;
        _totalStaked += uint128(amount);
        emit Staked(agentId, from, amount);
        if (unfreezes) emit TrustStateChanged(agentId, TrustState.Good, info.strikes, "restaked");
        usdc.safeTransferFrom(from, address(this), amount);
    }

    /// @dev Reverts if the agent holds runs and would keep less than {minStake} after a withdrawal.
    function _checkUnlocked(uint256 agentId, uint256 remaining) private view {
        if (remaining >= minStake) return;
        uint256 locks = locksOf(agentId);
        if (locks != 0) revert StakeVaultStakeLocked(agentId, locks);
    }

    /// @dev Takes `bps` of the stake in `info`, counts a strike, moves the
    /// trust state to Frozen (Banned at the third strike, or if already banned; announced on every slash, since the
    /// strike count changes) and pays `beneficiary`, crediting it when the transfer fails.
    function _slash(uint256 agentId, StakeInfo memory info, uint256 bps, address beneficiary, string calldata reason)
        private
        returns (uint256 amount)
    {
        if (bps == 0 || bps > _MAX_BPS) revert StakeVaultInvalidBps(bps);
        amount = uint256(info.total) * bps / _MAX_BPS;
        uint88 remaining = info.total - uint88(amount);
        info.total = remaining;
        if (info.pending > remaining) {
            info.pending = remaining;
            if (remaining == 0) info.availableAt = 0;
        }
        uint8 strikes = info.strikes == type(uint8).max ? type(uint8).max : info.strikes + 1;
        info.strikes = strikes;
        TrustState trust =
            info.trust == TrustState.Banned || strikes >= BAN_AFTER_STRIKES ? TrustState.Banned : TrustState.Frozen;
        info.trust = trust;
        _stakes[agentId] = info;
        _totalStaked -= uint128(amount);

        emit Slashed(agentId, beneficiary, amount, bps, reason);
        emit TrustStateChanged(agentId, trust, strikes, reason);
        if (amount != 0 && !usdc.trySafeTransfer(beneficiary, amount)) {
            _credits[beneficiary] += amount;
            _totalCredits += uint128(amount);
            emit PaymentDeferred(beneficiary, amount);
        }
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
