// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {IInsurancePool} from "./interfaces/IInsurancePool.sol";
import {IRunEscrow} from "./interfaces/IRunEscrow.sol";
import {RolePausable} from "./utils/RolePausable.sol";

/// @title AgentHub insurance pool
/// @notice Agents (their token owners, or anyone on their behalf) stake USDC as coverage. Insurance pays agreed
/// damages, never the poster's own deposit (the escrow refunds that): a run's cover is one of its terms, fixed when
/// the poster funds it ({IRunEscrow-coverOf}, bounded by the escrow's {IRunEscrow-maxCoverBps}) and part of the
/// agent's claim consent, so no one can raise it once agents may claim. When the run escrow records a verified failure of an agent on that run (a claim or revision timeout, or a dispute
/// the agent lost), the poster claims once per run and receives min(cover - the agent's stake already slashed to the
/// poster for that failure, the agent's coverage). No cover, nothing to claim; a rejection is the poster's own call
/// and pays nothing. Withdrawals wait {withdrawalCooldown}; coverage that is pending withdrawal stays claimable until
/// it is paid out, and is not paid out while the agent holds runs or within {CLAIM_WINDOW} of its last verified
/// failure (an agent cannot request at claim time, drag the run past the cooldown and leave its posters nothing).
/// @dev Invariant: `usdc.balanceOf(address(this)) == totalCoverage()` (barring direct transfers to the pool).
/// The relayer (RELAYER_ROLE) submits owner and poster actions after the API verified their signed request.
/// The withdrawal cooldown changes only through DEFAULT_ADMIN_ROLE (the governance timelock); PAUSER_ROLE (the
/// emergency Safe and the timelock) stops every USDC movement: stakes, withdrawals and claims.
contract InsurancePool is IInsurancePool, RolePausable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @notice Role allowed to act for token owners and posters (gasless writes).
    bytes32 public constant RELAYER_ROLE = keccak256("RELAYER_ROLE");

    /// @notice Shortest withdrawal cooldown governance may set.
    uint64 public constant MIN_WITHDRAWAL_COOLDOWN = 7 days;
    /// @notice Longest withdrawal cooldown governance may set.
    uint64 public constant MAX_WITHDRAWAL_COOLDOWN = 90 days;

    /// @notice How long after an agent's verified failure its coverage stays in the pool for the poster's claim.
    uint64 public constant CLAIM_WINDOW = 7 days;

    /// @inheritdoc IInsurancePool
    uint64 public withdrawalCooldown;

    /// @dev A constructor argument was the zero address.
    error InsurancePoolZeroAddress();

    struct PendingWithdrawal {
        uint192 amount;
        uint64 availableAt;
    }

    /// @notice The USDC token held by the pool.
    IERC20 public immutable usdc;
    /// @notice The run escrow that records failed agents.
    IRunEscrow public immutable escrow;
    /// @notice The agent identity registry (ERC-721; token id = agent id).
    IERC721 public immutable identity;

    uint256 private _totalCoverage;
    mapping(uint256 agentId => uint256) private _coverage;
    mapping(uint256 agentId => PendingWithdrawal) private _pending;
    mapping(uint256 runId => bool) private _claimed;

    constructor(IERC20 usdc_, IRunEscrow escrow_, IERC721 identity_, address admin, address relayer) {
        if (
            address(usdc_) == address(0) || address(escrow_) == address(0) || address(identity_) == address(0)
                || admin == address(0)
        ) revert InsurancePoolZeroAddress();
        usdc = usdc_;
        escrow = escrow_;
        identity = identity_;
        withdrawalCooldown = 14 days;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        if (relayer != address(0)) _grantRole(RELAYER_ROLE, relayer);
        emit WithdrawalCooldownUpdated(14 days);
    }

    // ---------------------------------------------------------------- governance

    /// @notice Sets the cooldown of withdrawals requested from now on (MIN_WITHDRAWAL_COOLDOWN..
    /// MAX_WITHDRAWAL_COOLDOWN); pending requests keep their date. Admin (governance) only.
    function setWithdrawalCooldown(uint64 cooldown) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (cooldown < MIN_WITHDRAWAL_COOLDOWN || cooldown > MAX_WITHDRAWAL_COOLDOWN) {
            revert InsurancePoolInvalidCooldown(cooldown);
        }
        withdrawalCooldown = cooldown;
        emit WithdrawalCooldownUpdated(cooldown);
    }

    // ---------------------------------------------------------------- staking

    /// @inheritdoc IInsurancePool
    function stake(uint256 agentId, uint256 amount) external nonReentrant whenNotPaused {
        _stake(agentId, msg.sender, amount);
    }

    /// @inheritdoc IInsurancePool
    /// @dev Callable by `from` itself or the relayer, so that nobody can redirect a payer's permit to another agent.
    /// The permit must succeed: a failing one (used, expired, not `from`'s) reverts, so the relayer's role can never
    /// spend a standing allowance `from` gave the pool (a front-run permit fails the call; the payer signs anew).
    function stakeWithPermit(uint256 agentId, address from, uint256 amount, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
        nonReentrant
        whenNotPaused
    {
        if (msg.sender != from && !hasRole(RELAYER_ROLE, msg.sender)) revert InsurancePoolUnauthorized(msg.sender);
        IERC20Permit(address(usdc)).permit(from, address(this), amount, deadline, v, r, s);
        _stake(agentId, from, amount);
    }

    function _stake(uint256 agentId, address from, uint256 amount) private {
        if (amount == 0) revert InsurancePoolZeroAmount();
        identity.ownerOf(agentId); // reverts for unknown agents
        _coverage[agentId] += amount;
        _totalCoverage += amount;
        emit CoverageStaked(agentId, from, amount);
        usdc.safeTransferFrom(from, address(this), amount);
    }

    // ------------------------------------------------------------ withdrawals

    /// @inheritdoc IInsurancePool
    function requestWithdrawal(uint256 agentId, uint256 amount) external nonReentrant {
        _authorizeOwner(agentId);
        if (amount == 0) revert InsurancePoolZeroAmount();
        if (_pending[agentId].amount != 0) revert InsurancePoolWithdrawalPending(agentId);
        uint256 available = _coverage[agentId];
        if (amount > available) revert InsurancePoolInsufficientCoverage(agentId, available, amount);
        uint64 availableAt = uint64(block.timestamp) + withdrawalCooldown;
        _pending[agentId] = PendingWithdrawal(SafeCast.toUint192(amount), availableAt);
        emit CoverageWithdrawalRequested(agentId, amount, availableAt);
    }

    /// @inheritdoc IInsurancePool
    function withdraw(uint256 agentId) external nonReentrant whenNotPaused {
        address owner = _authorizeOwner(agentId);
        PendingWithdrawal memory p = _pending[agentId];
        if (p.amount == 0) revert InsurancePoolNoWithdrawal(agentId);
        if (block.timestamp < p.availableAt) revert InsurancePoolCooldownActive(agentId, p.availableAt);
        _checkCoverageFree(agentId);
        uint256 amount = p.amount; // claims paid meanwhile already capped it at the coverage
        delete _pending[agentId];
        _coverage[agentId] -= amount;
        _totalCoverage -= amount;
        emit CoverageWithdrawn(agentId, owner, amount);
        usdc.safeTransfer(owner, amount);
    }

    // ----------------------------------------------------------------- claims

    /// @inheritdoc IInsurancePool
    /// @dev Callable by the run's poster or the relayer; the payout always goes to the poster. If the claim leaves
    /// less coverage than the pending withdrawal, the pending amount is reduced to what is left (and cleared at 0).
    function claim(uint256 runId) external nonReentrant whenNotPaused returns (uint256 paid) {
        (uint256 agentId, IRunEscrow.FailureKind kind, uint256 slashedToPoster) = escrow.failureOf(runId);
        if (agentId == 0) revert InsurancePoolNoFailure(runId);
        if (kind != IRunEscrow.FailureKind.TimedOut && kind != IRunEscrow.FailureKind.DisputeLost) {
            revert InsurancePoolLossNotVerified(runId);
        }
        IRunEscrow.Run memory run = escrow.getRun(runId);
        if (msg.sender != run.poster && !hasRole(RELAYER_ROLE, msg.sender)) revert InsurancePoolUnauthorized(msg.sender);
        if (_claimed[runId]) revert InsurancePoolAlreadyClaimed(runId);
        // Agreed damages, not the deposit: the escrow already returned reward + fee to the poster.
        uint256 cover = escrow.coverOf(runId);
        if (cover == 0) revert InsurancePoolNoCoverDeclared(runId);
        if (slashedToPoster >= cover) revert InsurancePoolNoLoss(runId);
        uint256 loss = cover - slashedToPoster;
        uint256 cov = _coverage[agentId];
        if (cov == 0) revert InsurancePoolNoCoverage(agentId);

        paid = loss < cov ? loss : cov;
        uint256 remaining = cov - paid;

        _claimed[runId] = true;
        _coverage[agentId] = remaining;
        _totalCoverage -= paid;
        PendingWithdrawal storage p = _pending[agentId];
        if (p.amount > remaining) {
            if (remaining == 0) delete _pending[agentId];
            else p.amount = uint192(remaining); // remaining < p.amount fits in uint192
        }
        emit ClaimPaid(runId, agentId, run.poster, paid);
        usdc.safeTransfer(run.poster, paid);
    }

    // ------------------------------------------------------------------ views

    /// @inheritdoc IInsurancePool
    function coverageOf(uint256 agentId) external view returns (uint256) {
        return _coverage[agentId];
    }

    /// @inheritdoc IInsurancePool
    function hasCoverage(uint256 agentId, uint256 requiredAmount) external view returns (bool) {
        return _coverage[agentId] - _pending[agentId].amount >= requiredAmount;
    }

    /// @inheritdoc IInsurancePool
    function pendingWithdrawal(uint256 agentId) external view returns (uint256 amount, uint64 availableAt) {
        PendingWithdrawal memory p = _pending[agentId];
        return (p.amount, p.availableAt);
    }

    /// @inheritdoc IInsurancePool
    function totalCoverage() external view returns (uint256) {
        return _totalCoverage;
    }

    /// @inheritdoc IInsurancePool
    function isClaimed(uint256 runId) external view returns (bool) {
        return _claimed[runId];
    }

    // --------------------------------------------------------------- internal

    /// @dev Reverts while the agent's coverage backs runs it holds or failed recently (see {withdraw}).
    function _checkCoverageFree(uint256 agentId) private view {
        uint256 held = escrow.vault().locksOf(agentId);
        if (held != 0) revert InsurancePoolAgentHoldsRuns(agentId, held);
        uint256 failedAt = escrow.lastVerifiedFailureAt(agentId);
        if (failedAt != 0 && block.timestamp < failedAt + CLAIM_WINDOW) {
            revert InsurancePoolClaimWindowOpen(agentId, failedAt + CLAIM_WINDOW);
        }
    }

    /// @dev Reverts unless the caller is the agent's token owner or the relayer; returns the token owner.
    function _authorizeOwner(uint256 agentId) private view returns (address owner) {
        owner = identity.ownerOf(agentId);
        if (msg.sender != owner && !hasRole(RELAYER_ROLE, msg.sender)) revert InsurancePoolUnauthorized(msg.sender);
    }
}
