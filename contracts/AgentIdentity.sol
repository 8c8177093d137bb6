// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {IAgentIdentity} from "./interfaces/IAgentIdentity.sol";
import {RolePausable} from "./utils/RolePausable.sol";

/// @title AgentHub agent identity
/// @notice ERC-721 agent identities minted by the relayer; `tokenURI` is the agent's registration file.
/// @dev Profiles are stored packed to keep the relayer's mint cheap. Per token, one "head" word holds
///   bits   0..39  registeredAt (uint40 seconds)
///   bits  40..47  claimed flag
///   bits  48..55  prefix code: the URI's well-known prefix, stored as a code instead of bytes (see {_prefix})
///   bits  56..87  length of the rest of the URI (the payload)
///   bits 88..255  the first 21 bytes of the payload
/// and the remaining payload bytes follow in consecutive "tail" words. A 66-character
/// `ipfs://bafkrei...` URI thus takes two storage words instead of the five of a plain string + struct.
/// PAUSER_ROLE (the emergency Safe and the timelock) stops mints, transfers, claims and profile updates.
contract AgentIdentity is ERC721, RolePausable, EIP712, IAgentIdentity {
    using SafeCast for uint256;

    /// @notice May mint identities and update any profile on behalf of its (verified) owner.
    bytes32 public constant RELAYER_ROLE = keccak256("RELAYER_ROLE");
    /// @notice EIP-712 type of the holder's consent to a claim transfer.
    bytes32 public constant CLAIM_TYPEHASH = keccak256("Claim(uint256 agentId,address to)");

    uint256 private constant _HEAD_BYTES = 21;
    uint256 private constant _CLAIMED_BIT = 1 << 40;
    uint256 private constant _REGISTERED_AT_MASK = (1 << 40) - 1;
    /// @dev Everything but the 21 payload bytes: registeredAt, claimed, prefix code and length.
    uint256 private constant _META_MASK = (1 << 88) - 1;

    /// @notice {mintBatch} got no recipients or a different number of URIs than recipients.
    error AgentIdentityBatchMismatch(uint256 recipients, uint256 uris);

    uint256 private _totalAgents;
    mapping(uint256 tokenId => uint256 head) private _heads;
    mapping(uint256 tokenId => mapping(uint256 index => bytes32 word)) private _tails;

    /// @param admin receives DEFAULT_ADMIN_ROLE.
    /// @param relayer receives RELAYER_ROLE.
    constructor(address admin, address relayer)
        ERC721("AgentHub Agent", "AGENT")
        EIP712("AgentHub Identity", "1")
    {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(RELAYER_ROLE, relayer);
    }

    /// @inheritdoc IAgentIdentity
    function mint(address to, string calldata metadataUri)
        external
        onlyRole(RELAYER_ROLE)
        returns (uint256 agentId)
    {
        if (bytes(metadataUri).length == 0) revert AgentIdentityEmptyUri();
        unchecked {
            agentId = ++_totalAgents;
        }
        _mint(to, agentId);
        _writeUri(agentId, metadataUri, uint40(block.timestamp));
        emit AgentRegistered(agentId, to);
        emit ProfileUpdated(agentId, metadataUri);
    }

    /// @notice Mints one identity per (`to[i]`, `metadataUris[i]`) in one transaction, with consecutive ids from
    /// `firstId`; each mint emits the same events as {mint}. Lets the relayer commit a burst of registrations in one
    /// transaction (one base fee and one block for all of them).
    /// @dev Kept outside {IAgentIdentity}: a relayer convenience, not part of the identity interface.
    function mintBatch(address[] calldata to, string[] calldata metadataUris)
        external
        onlyRole(RELAYER_ROLE)
        returns (uint256 firstId)
    {
        uint256 count = to.length;
        if (count == 0 || count != metadataUris.length) revert AgentIdentityBatchMismatch(count, metadataUris.length);
        firstId = _totalAgents + 1;
        uint40 registeredAt = uint40(block.timestamp);
        for (uint256 i; i < count; ++i) {
            string calldata metadataUri = metadataUris[i];
            if (bytes(metadataUri).length == 0) revert AgentIdentityEmptyUri();
            uint256 agentId = firstId + i;
            _mint(to[i], agentId);
            _writeUri(agentId, metadataUri, registeredAt);
            emit AgentRegistered(agentId, to[i]);
            emit ProfileUpdated(agentId, metadataUri);
        }
        _totalAgents = firstId + count - 1;
    }

    /// @inheritdoc IAgentIdentity
    function setTokenURI(uint256 tokenId, string calldata metadataUri) external whenNotPaused {
        address owner = _ownerOf(tokenId);
        if (owner == address(0)) revert AgentIdentityNonexistent(tokenId);
        if (!_isAuthorized(owner, _msgSender(), tokenId) && !hasRole(RELAYER_ROLE, _msgSender())) {
            revert AgentIdentityUnauthorized(_msgSender(), tokenId);
        }
        if (bytes(metadataUri).length == 0) revert AgentIdentityEmptyUri();
        // Keep registeredAt and the claimed flag, replace the URI.
        _writeUri(tokenId, metadataUri, _heads[tokenId] & (_REGISTERED_AT_MASK | _CLAIMED_BIT));
        emit ProfileUpdated(tokenId, metadataUri);
    }

    /// @inheritdoc IAgentIdentity
    function claimTransfer(uint256 tokenId, address to, bytes calldata signature) external {
        address owner = _ownerOf(tokenId);
        if (owner == address(0)) revert AgentIdentityNonexistent(tokenId);
        uint256 head = _heads[tokenId];
        if (head & _CLAIMED_BIT != 0) revert AgentIdentityAlreadyClaimed(tokenId);
        bytes32 digest = _hashTypedDataV4(keccak256(abi.encode(CLAIM_TYPEHASH, tokenId, to)));
        if (!SignatureChecker.isValidSignatureNowCalldata(owner, digest, signature)) {
            revert AgentIdentityInvalidSignature(tokenId);
        }
        _heads[tokenId] = head | _CLAIMED_BIT;
        _transfer(owner, to, tokenId);
        emit AgentClaimed(tokenId, to);
    }

    /// @inheritdoc IAgentIdentity
    function getProfile(uint256 tokenId) external view returns (Profile memory) {
        uint256 head = _heads[tokenId];
        if (head == 0) revert AgentIdentityNonexistent(tokenId);
        return Profile({
            metadataUri: _readUri(tokenId, head),
            registeredAt: uint64(head & _REGISTERED_AT_MASK),
            claimed: head & _CLAIMED_BIT != 0
        });
    }

    /// @inheritdoc IAgentIdentity
    function totalAgents() external view returns (uint256) {
        return _totalAgents;
    }

    /// @notice The agent's registration file URI (its metadataUri).
    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        uint256 head = _heads[tokenId];
        if (head == 0) revert AgentIdentityNonexistent(tokenId);
        return _readUri(tokenId, head);
    }

    /// @notice The EIP-712 domain separator used for claim signatures.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @inheritdoc ERC721
    function supportsInterface(bytes4 interfaceId) public view override(ERC721, AccessControl) returns (bool) {
        return interfaceId == type(IAgentIdentity).interfaceId || super.supportsInterface(interfaceId);
    }

    /// @dev Every mint, transfer and claim goes through here: none while paused.
    function _update(address to, uint256 tokenId, address auth)
        internal
        override
        whenNotPaused
        returns (address)
    {
        return super._update(to, tokenId, auth);
    }

    // ---------------------------------------------------------------- packed URI storage

    /// @dev Well-known URI prefixes stored as a one-byte code. Code 0: no prefix.
    function _prefix(uint256 code) private pure returns (bytes32 prefix, uint256 length) {
        if (code == 1) return (bytes32("ipfs://bafkrei"), 14); // CIDv1, raw, sha2-256 (base32)
        if (code == 2) return (bytes32("ipfs://bafybei"), 14); // CIDv1, dag-pb, sha2-256 (base32)
        if (code == 3) return (bytes32("ipfs://"), 7);
        if (code == 4) return (bytes32("https://"), 8);
        return (bytes32(0), 0);
    }

    /// @dev The code of the longest known prefix `uri` starts with.
    function _prefixCode(string calldata uri) private pure returns (uint256) {
        uint256 length = bytes(uri).length;
        if (length < 7) return 0;
        bytes32 word;
        assembly ("memory-safe") {
            word := calldataload(uri.offset)
        }
        for (uint256 code = 1; code <= 4; ++code) {
            (bytes32 prefix, uint256 prefixLength) = _prefix(code);
            if (length >= prefixLength && word & _leftMask(prefixLength) == prefix) return code;
        }
        return 0;
    }

    /// @dev A mask of the `n` leftmost (most significant) bytes of a word, `n` <= 32.
    function _leftMask(uint256 n) private pure returns (bytes32) {
        return n == 0 ? bytes32(0) : ~bytes32((1 << ((32 - n) * 8)) - 1);
    }

    /// @dev Stores `uri` for `tokenId`; `meta` carries the registeredAt and claimed bits to keep.
    function _writeUri(uint256 tokenId, string calldata uri, uint256 meta) private {
        uint256 code = _prefixCode(uri);
        (, uint256 prefixLength) = _prefix(code);
        uint256 offset;
        assembly ("memory-safe") {
            offset := add(uri.offset, prefixLength)
        }
        uint256 length = bytes(uri).length - prefixLength;
        uint256 head = uint256(_loadCalldata(offset, length < _HEAD_BYTES ? length : _HEAD_BYTES))
            | (uint256(length.toUint32()) << 56) | (code << 48) | meta;
        _heads[tokenId] = head;
        if (length > _HEAD_BYTES) {
            mapping(uint256 => bytes32) storage tail = _tails[tokenId];
            uint256 done = _HEAD_BYTES;
            for (uint256 i = 0; done < length; ++i) {
                uint256 chunk = length - done < 32 ? length - done : 32;
                tail[i] = _loadCalldata(offset + done, chunk);
                done += chunk;
            }
        }
    }

    /// @dev `n` (<= 32) calldata bytes at `offset`, left-aligned and zero-padded.
    function _loadCalldata(uint256 offset, uint256 n) private pure returns (bytes32 word) {
        assembly ("memory-safe") {
            word := calldataload(offset)
        }
        word &= _leftMask(n);
    }

    /// @dev Rebuilds the URI of `tokenId` from its `head` and tail words.
    function _readUri(uint256 tokenId, uint256 head) private view returns (string memory uri) {
        (bytes32 prefix, uint256 prefixLength) = _prefix((head >> 48) & 0xff);
        uint256 length = (head >> 56) & 0xffffffff;
        uint256 total = prefixLength + length;
        // Room for whole-word writes past the end; the length is set to `total` below.
        bytes memory buffer = new bytes(total + 64);
        bytes32 first = bytes32(head & ~_META_MASK);
        assembly ("memory-safe") {
            let data := add(buffer, 32)
            mstore(data, prefix)
            mstore(add(data, prefixLength), first)
        }
        if (length > _HEAD_BYTES) {
            mapping(uint256 => bytes32) storage tail = _tails[tokenId];
            uint256 done = _HEAD_BYTES;
            for (uint256 i = 0; done < length; ++i) {
                bytes32 word = tail[i];
                assembly ("memory-safe") {
                    mstore(add(add(buffer, 32), add(prefixLength, done)), word)
                }
                done += 32;
            }
        }
        assembly ("memory-safe") {
            mstore(buffer, total)
        }
        uri = string(buffer);
    }
}
