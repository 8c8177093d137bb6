// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Votes} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Votes.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

/// @dev Test-only votes token on the default block-number clock (the AgentHub governor must refuse it).
contract MockBlockClockVotes is ERC20, ERC20Votes {
    constructor() ERC20("Block Clock Votes", "BCV") EIP712("Block Clock Votes", "1") {}

    function _update(address from, address to, uint256 value) internal override(ERC20, ERC20Votes) {
        super._update(from, to, value);
    }
}
