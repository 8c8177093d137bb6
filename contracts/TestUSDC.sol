// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {ERC3009} from "@openzeppelin/contracts/token/ERC20/extensions/draft-ERC3009.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";

/// @title Test USDC (local chains only)
/// @notice Stand-in for Circle's USDC on local chains: 6 decimals, name and symbol "USDC", EIP-712 domain
/// name "USDC" version "2" (as FiatToken v2 on Base Sepolia), EIP-2612 `permit` and EIP-3009
/// `transferWithAuthorization` / `receiveWithAuthorization` / `cancelAuthorization` with random 32-byte nonces,
/// so x402 clients signing with `extra: {name: "USDC", version: "2"}` work unchanged.
/// @dev Every signature (both the `(v, r, s)` and the `bytes` overloads) is checked with {SignatureChecker}:
/// ERC-1271 smart accounts are supported and malleable high-s ECDSA signatures are rejected.
/// Anyone may {mint}: never deploy this on a public network as a real asset.
contract TestUSDC is ERC20, IERC20Permit, EIP712, Nonces, ERC3009 {
    bytes32 private constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    /// @dev The permit's deadline has passed.
    error ERC2612ExpiredSignature(uint256 deadline);
    /// @dev The permit was not signed by `owner`.
    error ERC2612InvalidSigner(address owner);

    constructor() ERC20("USDC", "USDC") EIP712("USDC", "2") {}

    /// @notice USDC has 6 decimals.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice EIP-712 domain version, as FiatToken's `version()` (some x402 / permit clients read it on chain).
    function version() external pure returns (string memory) {
        return "2";
    }

    /// @notice Mints `amount` test tokens to `to`. Open to anyone: this token has no value.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    // ---------------------------------------------------------------- EIP-2612

    /// @inheritdoc IERC20Permit
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        _permit(owner, spender, value, deadline, abi.encodePacked(r, s, v));
    }

    /// @notice Same as {permit} with a packed or ERC-1271 `signature` (FiatToken v2.2 overload).
    function permit(address owner, address spender, uint256 value, uint256 deadline, bytes memory signature)
        external
    {
        _permit(owner, spender, value, deadline, signature);
    }

    /// @inheritdoc IERC20Permit
    function nonces(address owner) public view override(IERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }

    /// @inheritdoc IERC20Permit
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    function _permit(address owner, address spender, uint256 value, uint256 deadline, bytes memory signature)
        private
    {
        if (block.timestamp > deadline) revert ERC2612ExpiredSignature(deadline);
        bytes32 hash = _hashTypedDataV4(
            keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, _useNonce(owner), deadline))
        );
        if (!SignatureChecker.isValidSignatureNow(owner, hash, signature)) revert ERC2612InvalidSigner(owner);
        _approve(owner, spender, value);
    }

    // ---------------------------------------------------------------- EIP-3009

    /// @notice Executes a transfer with a signed authorization from `from` (EIP-3009).
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) public override {
        transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v));
    }

    /// @notice Same as {transferWithAuthorization} with a packed or ERC-1271 `signature`.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) public {
        bytes32 hash = _hashTypedDataV4(
            keccak256(abi.encode(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce))
        );
        if (!SignatureChecker.isValidSignatureNow(from, hash, signature)) revert ERC3009InvalidSignature();
        _transferWithAuthorization(from, to, value, validAfter, validBefore, nonce);
    }

    /// @notice Receives a transfer with a signed authorization from `from`; the caller must be the payee `to`.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) public override {
        receiveWithAuthorization(from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v));
    }

    /// @notice Same as {receiveWithAuthorization} with a packed or ERC-1271 `signature`.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) public {
        if (to != _msgSender()) revert ERC20InvalidReceiver(to);
        bytes32 hash = _hashTypedDataV4(
            keccak256(abi.encode(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce))
        );
        if (!SignatureChecker.isValidSignatureNow(from, hash, signature)) revert ERC3009InvalidSignature();
        _transferWithAuthorization(from, to, value, validAfter, validBefore, nonce);
    }

    /// @notice Cancels an unused authorization of `authorizer` (EIP-3009).
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) public override {
        cancelAuthorization(authorizer, nonce, abi.encodePacked(r, s, v));
    }

    /// @notice Same as {cancelAuthorization} with a packed or ERC-1271 `signature`.
    function cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) public {
        bytes32 hash = _hashTypedDataV4(keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)));
        if (!SignatureChecker.isValidSignatureNow(authorizer, hash, signature)) revert ERC3009InvalidSignature();
        _cancelAuthorization(authorizer, nonce);
    }
}
