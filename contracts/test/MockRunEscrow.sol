// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IRunEscrow} from "../interfaces/IRunEscrow.sol";

/// @dev Test-only stand-in for the run escrow: only the views the insurance pool reads, with setters.
contract MockRunEscrow {
    struct Failure {
        uint256 agentId;
        IRunEscrow.FailureKind kind;
        uint256 slashedToPoster;
    }

    mapping(uint256 => IRunEscrow.Run) private _runs;
    mapping(uint256 => Failure) private _failures;
    mapping(uint256 => uint256) private _locks;
    mapping(uint256 => uint256) private _lastVerifiedFailureAt;
    mapping(uint256 => uint256) private _covers;

    function setCover(uint256 runId, uint256 cover) external {
        _covers[runId] = cover;
    }

    function coverOf(uint256 runId) external view returns (uint256) {
        return _covers[runId];
    }

    /// @dev Stands in for the stake vault too (the pool asks `vault().locksOf`).
    function vault() external view returns (address) {
        return address(this);
    }

    function setLocks(uint256 agentId, uint256 locks) external {
        _locks[agentId] = locks;
    }

    function locksOf(uint256 agentId) external view returns (uint256) {
        return _locks[agentId];
    }

    function setLastVerifiedFailureAt(uint256 agentId, uint256 at) external {
        _lastVerifiedFailureAt[agentId] = at;
    }

    function lastVerifiedFailureAt(uint256 agentId) external view returns (uint256) {
        return _lastVerifiedFailureAt[agentId];
    }

    function setRun(uint256 runId, address poster, uint128 reward, uint128 fee, uint256 agentId) external {
        IRunEscrow.Run storage r = _runs[runId];
        r.poster = poster;
        r.reward = reward;
        r.fee = fee;
        r.agentId = agentId;
        r.state = IRunEscrow.RunState.TimedOut;
    }

    /// @dev A verified failure (timeout) with nothing slashed to the poster; agentId 0 clears it.
    function setFailedAgent(uint256 runId, uint256 agentId) external {
        _failures[runId] = Failure(agentId, agentId == 0 ? IRunEscrow.FailureKind.None : IRunEscrow.FailureKind.TimedOut, 0);
    }

    function setFailure(uint256 runId, uint256 agentId, IRunEscrow.FailureKind kind, uint256 slashedToPoster)
        external
    {
        _failures[runId] = Failure(agentId, kind, slashedToPoster);
    }

    function getRun(uint256 runId) external view returns (IRunEscrow.Run memory) {
        return _runs[runId];
    }

    function failureOf(uint256 runId)
        external
        view
        returns (uint256 agentId, IRunEscrow.FailureKind kind, uint256 slashedToPoster)
    {
        Failure memory f = _failures[runId];
        return (f.agentId, f.kind, f.slashedToPoster);
    }
}
