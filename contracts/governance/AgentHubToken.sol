// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {ERC20Votes} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Votes.sol";
import {ERC6372Utils} from "@openzeppelin/contracts/utils/ERC6372Utils.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {Time} from "@openzeppelin/contracts/utils/types/Time.sol";

/// @title AgentHub governance token (AHUB)
/// @notice ERC20Votes token with EIP-2612 permit; 100,000,000 tokens (18 decimals) minted once at deployment
/// to an allocation chosen by the deployment (treasury, community, team... see docs/decisions.md), never again.
/// Holders must delegate (to themselves or someone else) before their balance counts as voting power.
/// @dev Uses the ERC-6372 timestamp clock, so the governor's voting delay and period are measured in seconds.
contract AgentHubToken is ERC20, ERC20Permit, ERC20Votes {
    /// @notice Total (and fixed) supply: 100 million tokens.
    uint256 public constant INITIAL_SUPPLY = 100_000_000 * 1e18;

    /// @dev The allocation's lengths differ, or it is empty.
    error AgentHubTokenInvalidAllocation();
    /// @dev The allocation does not add up to INITIAL_SUPPLY.
    error AgentHubTokenAllocationNotSupply(uint256 total);

    /// @param holders receive `amounts[i]` each; the amounts must add up to INITIAL_SUPPLY.
    constructor(address[] memory holders, uint256[] memory amounts) ERC20("AgentHub", "AHUB") ERC20Permit("AgentHub") {
        if (holders.length == 0 || holders.length != amounts.length) revert AgentHubTokenInvalidAllocation();
        for (uint256 i = 0; i < holders.length; ++i) {
            _mint(holders[i], amounts[i]);
        }
        if (totalSupply() != INITIAL_SUPPLY) revert AgentHubTokenAllocationNotSupply(totalSupply());
    }

    /// @notice ERC-6372 clock: the current block timestamp.
    function clock() public view override returns (uint48) {
        return Time.timestamp();
    }

    /// @notice ERC-6372 clock description: "mode=timestamp".
    // solhint-disable-next-line func-name-mixedcase
    function CLOCK_MODE() public view override returns (string memory) {
        return ERC6372Utils.timestampClockMode(clock);
    }

    // The following functions are overrides required by Solidity.

    function _update(address from, address to, uint256 value) internal override(ERC20, ERC20Votes) {
        super._update(from, to, value);
    }

    /// @inheritdoc ERC20Permit
    function nonces(address owner) public view override(ERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }
}
