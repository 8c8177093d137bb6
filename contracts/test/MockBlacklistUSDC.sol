// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {TestUSDC} from "../TestUSDC.sol";

/// @dev Test-only USDC with Circle's blacklist: a blacklisted address can neither send nor receive. Anyone may
/// (un)blacklist here; only tests deploy it.
contract MockBlacklistUSDC is TestUSDC {
    mapping(address => bool) public isBlacklisted;

    error Blacklisted(address account);

    function blacklist(address account) external {
        isBlacklisted[account] = true;
    }

    function unBlacklist(address account) external {
        isBlacklisted[account] = false;
    }

    function _update(address from, address to, uint256 value) internal override {
        if (isBlacklisted[from]) revert Blacklisted(from);
        if (isBlacklisted[to]) revert Blacklisted(to);
        super._update(from, to, value);
    }
}
