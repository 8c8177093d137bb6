// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {TestUSDC} from "./TestUSDC.sol";

/// @title USDC of the local stack (local chains only)
/// @notice {TestUSDC} with Circle's blacklist, as FiatToken has: the deployer (Circle's blacklister) may
/// {blacklist} an address, which can then neither send nor receive, so the local stack exercises the contracts'
/// pull-payment fallback (credits) end to end. Contract tests measure gas on plain {TestUSDC}: FiatToken v2.2 keeps
/// the blacklist flag inside the balance word at no extra cost, which a separate mapping here would not mirror.
contract LocalUSDC is TestUSDC {
    /// @dev A transfer from or to a blacklisted address.
    error Blacklisted(address account);
    /// @dev Only the blacklister (the deployer) may change the blacklist.
    error LocalUSDCNotBlacklister(address caller);

    /// @notice An address was added to (`blacklisted`) or removed from the blacklist.
    event BlacklistUpdated(address indexed account, bool blacklisted);

    /// @notice May (un)blacklist addresses: the deployer.
    address public immutable blacklister;
    /// @notice Whether `account` can neither send nor receive.
    mapping(address account => bool) public isBlacklisted;

    constructor() {
        blacklister = msg.sender;
    }

    /// @notice Blacklists `account` (FiatToken's `blacklist`). Blacklister only.
    function blacklist(address account) external {
        if (msg.sender != blacklister) revert LocalUSDCNotBlacklister(msg.sender);
        isBlacklisted[account] = true;
        emit BlacklistUpdated(account, true);
    }

    /// @notice Lifts `account`'s blacklisting (FiatToken's `unBlacklist`). Blacklister only.
    function unBlacklist(address account) external {
        if (msg.sender != blacklister) revert LocalUSDCNotBlacklister(msg.sender);
        isBlacklisted[account] = false;
        emit BlacklistUpdated(account, false);
    }

    /// @dev Every mint, burn and transfer: none from or to a blacklisted address.
    function _update(address from, address to, uint256 value) internal override {
        if (isBlacklisted[from]) revert Blacklisted(from);
        if (isBlacklisted[to]) revert Blacklisted(to);
        super._update(from, to, value);
    }
}
