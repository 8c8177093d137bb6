// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IRunEscrow} from "../interfaces/IRunEscrow.sol";

/// @dev Test-only stand-in for the run escrow: only the views the insurance pool reads, with setters.
contract MockRunEscrow {
    mapping(uint256 => IRunEscrow.Run) private _runs;
    mapping(uint256 => uint256) private _failed;

    function setRun(uint256 runId, address poster, uint128 reward, uint128 fee, uint256 agentId) external {
        IRunEscrow.Run storage r = _runs[runId];
        r.poster = poster;
        r.reward = reward;
        r.fee = fee;
        r.agentId = agentId;
        r.state = IRunEscrow.RunState.Rejected;
    }

    function setFailedAgent(uint256 runId, uint256 agentId) external {
        _failed[runId] = agentId;
    }

    function getRun(uint256 runId) external view returns (IRunEscrow.Run memory) {
        return _runs[runId];
    }

    function failedAgentOf(uint256 runId) external view returns (uint256) {
        return _failed[runId];
    }
}
