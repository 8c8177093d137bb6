// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @dev Test-only hostile token: every transfer first calls `hookTarget` with `hookData` and bubbles its revert,
/// to show that a token calling back into the insurance pool hits the reentrancy guard.
contract MockReentrantERC20 is ERC20 {
    address public hookTarget;
    bytes public hookData;

    constructor() ERC20("Reentrant", "RE") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function setHook(address target, bytes calldata data) external {
        hookTarget = target;
        hookData = data;
    }

    function _update(address from, address to, uint256 value) internal override {
        address target = hookTarget;
        if (target != address(0) && from != address(0)) {
            (bool ok, bytes memory ret) = target.call(hookData);
            if (!ok) {
                assembly ("memory-safe") {
                    revert(add(ret, 0x20), mload(ret))
                }
            }
        }
        super._update(from, to, value);
    }
}
