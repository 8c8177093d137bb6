// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721URIStorage} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721URIStorage.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IIdentityRegistry} from "./IIdentityRegistry.sol";

/// @title ERC-8004 Identity Registry (AgentHub's implementation for local chains)
/// @notice Every agent is an ERC-721 token (`agentId`, numbered from 0) whose tokenURI is its `agentURI`; owners
/// and their operators manage the URI, on-chain metadata and the verified payment wallet (`agentWallet`).
/// @dev Written from the ERC text. Permissionless and without an admin: nothing here is governed. The constructor
/// writes no storage (name and symbol are constants, the EIP-712 name and version are immutables and the domain
/// separator is rebuilt for any other address), so the local stack can place this runtime code at the canonical
/// Base Sepolia address, where agent0-sdk looks for it (docs/erc8004.md).
contract IdentityRegistry is ERC721URIStorage, EIP712, IIdentityRegistry {
    /// @notice EIP-712 type the new wallet signs to prove control in {setAgentWallet}.
    bytes32 public constant AGENT_WALLET_SET_TYPEHASH =
        keccak256("AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)");
    /// @notice A wallet proof may expire at most this long after the block it is used in.
    uint256 public constant MAX_DEADLINE_DELAY = 5 minutes;
    /// @notice The reserved metadata key of the verified payment wallet.
    string public constant AGENT_WALLET_KEY = "agentWallet";

    bytes32 private constant _AGENT_WALLET_KEY_HASH = keccak256(bytes(AGENT_WALLET_KEY));

    /// @notice `caller` is neither the owner of `agentId` nor an operator it approved.
    error IdentityRegistryNotAuthorized(uint256 agentId, address caller);
    /// @notice The key `agentWallet` is set only through {setAgentWallet}.
    error IdentityRegistryReservedKey();
    /// @notice The payment wallet cannot be the zero address (use {unsetAgentWallet}).
    error IdentityRegistryZeroWallet();
    /// @notice The wallet proof expired at `deadline`.
    error IdentityRegistryProofExpired(uint256 deadline);
    /// @notice The wallet proof's `deadline` is more than {MAX_DEADLINE_DELAY} away.
    error IdentityRegistryDeadlineTooFar(uint256 deadline);
    /// @notice The signature is not `newWallet`'s over this agent, owner and deadline.
    error IdentityRegistryInvalidWalletProof(address newWallet);

    uint256 private _nextAgentId;
    mapping(uint256 agentId => mapping(string metadataKey => bytes value)) private _metadata;

    constructor() ERC721("", "") EIP712("ERC8004IdentityRegistry", "1") {}

    /// @notice Only the owner of `agentId` or an operator it approved.
    modifier onlyOwnerOrOperator(uint256 agentId) {
        if (!_isAuthorized(ownerOf(agentId), msg.sender, agentId)) {
            revert IdentityRegistryNotAuthorized(agentId, msg.sender);
        }
        _;
    }

    /// @inheritdoc ERC721
    function name() public pure override returns (string memory) {
        return "ERC-8004 Agent Identity";
    }

    /// @inheritdoc ERC721
    function symbol() public pure override returns (string memory) {
        return "AGENT";
    }

    /// @inheritdoc IIdentityRegistry
    function register() external returns (uint256 agentId) {
        agentId = _register("");
    }

    /// @inheritdoc IIdentityRegistry
    function register(string calldata agentURI) external returns (uint256 agentId) {
        agentId = _register(agentURI);
    }

    /// @inheritdoc IIdentityRegistry
    function register(string calldata agentURI, MetadataEntry[] calldata metadata) external returns (uint256 agentId) {
        uint256 count = metadata.length;
        for (uint256 i; i < count; ++i) {
            _checkNotReserved(metadata[i].metadataKey);
        }
        agentId = _register(agentURI);
        for (uint256 i; i < count; ++i) {
            _setMetadata(agentId, metadata[i].metadataKey, metadata[i].metadataValue);
        }
    }

    /// @inheritdoc IIdentityRegistry
    function setAgentURI(uint256 agentId, string calldata newURI) external onlyOwnerOrOperator(agentId) {
        _setTokenURI(agentId, newURI);
        emit URIUpdated(agentId, newURI, msg.sender);
    }

    /// @inheritdoc IIdentityRegistry
    function getMetadata(uint256 agentId, string calldata metadataKey) external view returns (bytes memory) {
        return _metadata[agentId][metadataKey];
    }

    /// @inheritdoc IIdentityRegistry
    function setMetadata(uint256 agentId, string calldata metadataKey, bytes calldata metadataValue)
        external
        onlyOwnerOrOperator(agentId)
    {
        _checkNotReserved(metadataKey);
        _setMetadata(agentId, metadataKey, metadataValue);
    }

    /// @inheritdoc IIdentityRegistry
    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature)
        external
        onlyOwnerOrOperator(agentId)
    {
        if (newWallet == address(0)) revert IdentityRegistryZeroWallet();
        if (block.timestamp > deadline) revert IdentityRegistryProofExpired(deadline);
        if (deadline > block.timestamp + MAX_DEADLINE_DELAY) revert IdentityRegistryDeadlineTooFar(deadline);
        bytes32 digest = _hashTypedDataV4(
            keccak256(abi.encode(AGENT_WALLET_SET_TYPEHASH, agentId, newWallet, ownerOf(agentId), deadline))
        );
        // ECDSA first: an EIP-7702 account is an EOA with code, and its key still signs for it.
        (address recovered, ECDSA.RecoverError error_,) = ECDSA.tryRecover(digest, signature);
        bool valid = (error_ == ECDSA.RecoverError.NoError && recovered == newWallet)
            || SignatureChecker.isValidERC1271SignatureNow(newWallet, digest, signature);
        if (!valid) revert IdentityRegistryInvalidWalletProof(newWallet);
        _setMetadata(agentId, AGENT_WALLET_KEY, abi.encodePacked(newWallet));
    }

    /// @inheritdoc IIdentityRegistry
    function getAgentWallet(uint256 agentId) external view returns (address) {
        return address(bytes20(_metadata[agentId][AGENT_WALLET_KEY]));
    }

    /// @inheritdoc IIdentityRegistry
    function unsetAgentWallet(uint256 agentId) external onlyOwnerOrOperator(agentId) {
        _setMetadata(agentId, AGENT_WALLET_KEY, "");
    }

    /// @inheritdoc IIdentityRegistry
    function isAuthorizedOrOwner(address spender, uint256 agentId) external view returns (bool) {
        return _isAuthorized(ownerOf(agentId), spender, agentId);
    }

    /// @notice The EIP-712 domain separator of wallet proofs (chain and this contract's address).
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @dev Mints the next id to the caller; its wallet starts as the caller (the ERC's initial `agentWallet`).
    /// Effects before the receiver hook of {_safeMint}.
    function _register(string memory agentURI) private returns (uint256 agentId) {
        agentId = _nextAgentId++;
        _setMetadata(agentId, AGENT_WALLET_KEY, abi.encodePacked(msg.sender));
        if (bytes(agentURI).length != 0) _setTokenURI(agentId, agentURI);
        emit Registered(agentId, agentURI, msg.sender);
        _safeMint(msg.sender, agentId);
    }

    function _setMetadata(uint256 agentId, string memory metadataKey, bytes memory metadataValue) private {
        _metadata[agentId][metadataKey] = metadataValue;
        emit MetadataSet(agentId, metadataKey, metadataKey, metadataValue);
    }

    function _checkNotReserved(string calldata metadataKey) private pure {
        if (keccak256(bytes(metadataKey)) == _AGENT_WALLET_KEY_HASH) revert IdentityRegistryReservedKey();
    }

    /// @dev A transfer (not a mint) clears the verified wallet: the new owner must prove its own.
    function _update(address to, uint256 tokenId, address auth) internal override returns (address from) {
        from = _ownerOf(tokenId);
        if (from != address(0) && to != address(0) && _metadata[tokenId][AGENT_WALLET_KEY].length != 0) {
            _setMetadata(tokenId, AGENT_WALLET_KEY, "");
        }
        return super._update(to, tokenId, auth);
    }
}
