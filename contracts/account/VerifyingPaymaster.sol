// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {BasePaymaster} from "@account-abstraction/contracts/core/BasePaymaster.sol";
import {Eip7702Support} from "@account-abstraction/contracts/core/Eip7702Support.sol";
import {_packValidationData} from "@account-abstraction/contracts/core/Helpers.sol";
import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {PackedUserOperation} from "@account-abstraction/contracts/interfaces/PackedUserOperation.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";

/// @title AgentHub verifying paymaster (ERC-4337 v0.8)
/// @notice Pays for UserOperations that an off-chain signer approved: the sponsoring service (API
/// `/api/paymaster`, ERC-7677) applies AgentHub's policy and signs `getHash(userOp, validUntil, validAfter)`;
/// this contract only checks that signature and the validity window. Ported from eth-infinitism's sample
/// VerifyingPaymaster, with a rotatable signer.
/// @dev `paymasterAndData` = paymaster (20) | verification gas (16) | postOp gas (16) |
/// abi.encode(uint48 validUntil, uint48 validAfter) (64) | ECDSA signature (64 or 65). The owner (the governance
/// timelock) rotates the signer, withdraws the deposit and manages the stake; anyone may top up the deposit.
/// The signed hash covers everything in the operation except the paymaster signature itself, plus the chain id and
/// this contract, so an approval cannot be replayed for another operation, chain or paymaster; the EntryPoint's
/// nonce makes each operation executable once. It also covers the sender's EIP-7702 delegate as the chain has it
/// during validation (after the bundle's authorizations applied): an approval for an EOA running Simple7702Account
/// fails (AA34) if the authorization is swapped for another implementation, which the operation's fields alone,
/// and the EntryPoint's hash without the 0x7702 init-code marker, would not reveal.
///
/// ERC-7562: validation reads this contract's own storage (`verifyingSigner`, rotatable), which bundlers allow only
/// to a staked paymaster (STO-031); the constructor stakes the value it is deployed with for `unstakeDelaySec`.
contract VerifyingPaymaster is BasePaymaster {
    uint256 private constant _VALID_TIMESTAMP_OFFSET = PAYMASTER_DATA_OFFSET;
    uint256 private constant _SIGNATURE_OFFSET = _VALID_TIMESTAMP_OFFSET + 64;

    /// @notice The key whose signature approves a sponsorship.
    address public verifyingSigner;

    /// @notice Emitted when the owner replaces the approving key.
    event VerifyingSignerUpdated(address indexed previousSigner, address indexed newSigner);

    /// @notice The signer cannot be the zero address.
    error VerifyingPaymasterZeroSigner();
    /// @notice `paymasterAndData` is too short to hold the validity window and a signature.
    error VerifyingPaymasterInvalidData(uint256 length);

    /// @param unstakeDelaySec With a value sent, the EntryPoint stake's unstake delay (ERC-7562 asks at least a day).
    constructor(IEntryPoint entryPoint_, address signer, address owner_, uint32 unstakeDelaySec)
        payable
        BasePaymaster(entryPoint_)
    {
        if (signer == address(0)) revert VerifyingPaymasterZeroSigner();
        verifyingSigner = signer;
        emit VerifyingSignerUpdated(address(0), signer);
        if (owner_ != msg.sender) _transferOwnership(owner_);
        if (msg.value > 0) entryPoint_.addStake{value: msg.value}(unstakeDelaySec);
    }

    /// @notice Replaces the approving key (a leaked or rotated signer). Owner only.
    function setVerifyingSigner(address newSigner) external onlyOwner {
        if (newSigner == address(0)) revert VerifyingPaymasterZeroSigner();
        emit VerifyingSignerUpdated(verifyingSigner, newSigner);
        verifyingSigner = newSigner;
    }

    /// @notice The hash the signer signs (EIP-191 personal message of these 32 bytes) to sponsor `userOp`.
    /// @dev Covers the operation's fields, the sender's EIP-7702 delegate (zero when its code is not a delegation
    /// designator), the paymaster gas limits, the chain, this paymaster and the window; not the paymaster data (it
    /// carries the signature).
    function getHash(PackedUserOperation calldata userOp, uint48 validUntil, uint48 validAfter)
        public
        view
        returns (bytes32)
    {
        return keccak256(
            abi.encode(
                userOp.sender,
                userOp.nonce,
                keccak256(userOp.initCode),
                delegateOf(userOp.sender),
                keccak256(userOp.callData),
                userOp.accountGasLimits,
                uint256(bytes32(userOp.paymasterAndData[PAYMASTER_VALIDATION_GAS_OFFSET:PAYMASTER_DATA_OFFSET])),
                userOp.preVerificationGas,
                userOp.gasFees,
                block.chainid,
                address(this),
                validUntil,
                validAfter
            )
        );
    }

    /// @notice The implementation `account` delegates to under EIP-7702 (its code is `0xef0100 ++ address`), or zero.
    function delegateOf(address account) public view returns (address delegate) {
        bytes32 code;
        assembly ("memory-safe") {
            // The first 23 bytes of its code into scratch space (zero-padded when shorter).
            mstore(0, 0)
            extcodecopy(account, 0, 0, 23)
            code := mload(0)
        }
        if (bytes3(code) == Eip7702Support.EIP7702_PREFIX) delegate = address(bytes20(code << 24));
    }

    /// @notice Splits `paymasterAndData` into the validity window and the signature.
    function parsePaymasterAndData(bytes calldata paymasterAndData)
        public
        pure
        returns (uint48 validUntil, uint48 validAfter, bytes calldata signature)
    {
        if (paymasterAndData.length < _SIGNATURE_OFFSET + 64) {
            revert VerifyingPaymasterInvalidData(paymasterAndData.length);
        }
        (validUntil, validAfter) = abi.decode(paymasterAndData[_VALID_TIMESTAMP_OFFSET:_SIGNATURE_OFFSET], (uint48, uint48));
        signature = paymasterAndData[_SIGNATURE_OFFSET:];
    }

    /// @dev A wrong signature is not a revert but SIG_VALIDATION_FAILED, as ERC-4337 asks, so simulation with a
    /// stub signature still estimates gas. No context: there is no postOp.
    function _validatePaymasterUserOp(PackedUserOperation calldata userOp, bytes32, uint256)
        internal
        view
        override
        returns (bytes memory context, uint256 validationData)
    {
        (uint48 validUntil, uint48 validAfter, bytes calldata signature) = parsePaymasterAndData(userOp.paymasterAndData);
        bytes32 hash = MessageHashUtils.toEthSignedMessageHash(getHash(userOp, validUntil, validAfter));
        (address recovered, ECDSA.RecoverError error,) = ECDSA.tryRecoverCalldata(hash, signature);
        bool failed = error != ECDSA.RecoverError.NoError || recovered != verifyingSigner;
        return ("", _packValidationData(failed, validUntil, validAfter));
    }
}
