// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";

/// @title Pausable by a role
/// @notice OpenZeppelin's {Pausable} driven by PAUSER_ROLE (in AgentHub: the emergency Safe and the timelock).
abstract contract RolePausable is AccessControl, Pausable {
    /// @notice Pauses and unpauses (the emergency multisig and the timelock).
    bytes32 public constant PAUSER_ROLE = keccak256("PAUSER_ROLE");

    /// @notice Stops what the contract marks `whenNotPaused`. PAUSER_ROLE only.
    function pause() external onlyRole(PAUSER_ROLE) {
        _pause();
    }

    /// @notice Lifts a pause. PAUSER_ROLE only.
    function unpause() external onlyRole(PAUSER_ROLE) {
        _unpause();
    }
}
