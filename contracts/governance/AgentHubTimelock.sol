// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {TimelockController} from "@openzeppelin/contracts/governance/TimelockController.sol";

/// @title AgentHub timelock (treasury and owner of governed contracts)
/// @notice Executes proposals that passed the AgentHub Governor after `minDelay` (2 days in production).
/// The governor is meant to be the only proposer and canceller; executors may be open (address(0)).
contract AgentHubTimelock is TimelockController {
    constructor(uint256 minDelay, address[] memory proposers, address[] memory executors, address admin)
        TimelockController(minDelay, proposers, executors, admin)
    {}
}
