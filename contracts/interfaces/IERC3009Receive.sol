// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title EIP-3009 `receiveWithAuthorization`, `bytes` signature overload (Circle's FiatToken v2.2, TestUSDC)
/// @notice Moves `value` from `from` to `to` on `from`'s EIP-712 `ReceiveWithAuthorization` signature (ECDSA or
/// ERC-1271); only `to` may submit it, within `validAfter..validBefore`, once per (`from`, `nonce`).
interface IERC3009Receive {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external;
}
