// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// @dev Test-only ERC-721 with open sequential minting (ids start at 1).
contract MockIdentity is ERC721 {
    uint256 public totalAgents;

    constructor() ERC721("Mock Agent", "MAGENT") {}

    function mint(address to) external returns (uint256 id) {
        id = ++totalAgents;
        _mint(to, id);
    }
}
