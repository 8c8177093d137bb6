// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {IIdentityRegistry} from "./IIdentityRegistry.sol";
import {IReputationRegistry} from "./IReputationRegistry.sol";

/// @title ERC-8004 Reputation Registry (AgentHub's implementation for local chains)
/// @notice Feedback on the agents of one {IIdentityRegistry}: anyone but the agent's owner and operators may rate
/// it; value, decimals, tags and revocation are stored, endpoint and the feedback document are emitted.
/// @dev Written from the ERC text. The identity registry is an immutable constructor argument instead of the ERC's
/// `initialize` (which exists for upgradeable proxies; nobody can front-run a constructor). No storage is written
/// at construction, so the local stack can place this code at the canonical Base Sepolia address.
contract ReputationRegistry is IReputationRegistry {
    using SafeCast for int256;

    /// @notice The largest `valueDecimals` the ERC allows.
    uint8 public constant MAX_VALUE_DECIMALS = 18;

    struct Feedback {
        int128 value;
        uint8 valueDecimals;
        bool isRevoked;
        string tag1;
        string tag2;
    }

    /// @dev The columns {readAllFeedback} answers.
    struct Listing {
        address[] clients;
        uint64[] feedbackIndexes;
        int128[] values;
        uint8[] valueDecimals;
        string[] tag1s;
        string[] tag2s;
        bool[] revokedStatuses;
    }

    /// @notice The identity registry is the zero address.
    error ReputationRegistryZeroIdentityRegistry();
    /// @notice `valueDecimals` is above {MAX_VALUE_DECIMALS}.
    error ReputationRegistryInvalidDecimals(uint8 valueDecimals);
    /// @notice `caller` owns `agentId` or is one of its operators: agents cannot rate themselves.
    error ReputationRegistrySelfFeedback(uint256 agentId, address caller);
    /// @notice `clientAddress` gave `agentId` no feedback numbered `feedbackIndex`.
    error ReputationRegistryUnknownFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex);
    /// @notice The feedback is already revoked.
    error ReputationRegistryAlreadyRevoked(uint256 agentId, address clientAddress, uint64 feedbackIndex);
    /// @notice A response needs a document (`responseURI`).
    error ReputationRegistryEmptyResponse();
    /// @notice {getSummary} needs the reviewers to count (an unfiltered average is open to Sybil feedback).
    error ReputationRegistryClientsRequired();

    IIdentityRegistry private immutable _identityRegistry;

    mapping(uint256 agentId => mapping(address client => mapping(uint64 index => Feedback))) private _feedback;
    mapping(uint256 agentId => mapping(address client => uint64 lastIndex)) private _lastIndex;
    mapping(uint256 agentId => address[] clients) private _clients;
    mapping(uint256 agentId => mapping(address client => mapping(uint64 index => address[] responders))) private
        _responders;
    mapping(uint256 agentId => mapping(address client => mapping(uint64 index => mapping(address responder => uint64))))
        private _responseCount;

    /// @param identityRegistry_ the identity registry whose agents this registry rates.
    constructor(address identityRegistry_) {
        if (identityRegistry_ == address(0)) revert ReputationRegistryZeroIdentityRegistry();
        _identityRegistry = IIdentityRegistry(identityRegistry_);
    }

    /// @inheritdoc IReputationRegistry
    function getIdentityRegistry() external view returns (address) {
        return address(_identityRegistry);
    }

    /// @inheritdoc IReputationRegistry
    function giveFeedback(
        uint256 agentId,
        int128 value,
        uint8 valueDecimals,
        string calldata tag1,
        string calldata tag2,
        string calldata endpoint,
        string calldata feedbackURI,
        bytes32 feedbackHash
    ) external {
        if (valueDecimals > MAX_VALUE_DECIMALS) revert ReputationRegistryInvalidDecimals(valueDecimals);
        // Also reverts (ERC721NonexistentToken) for an agent that is not registered.
        if (_identityRegistry.isAuthorizedOrOwner(msg.sender, agentId)) {
            revert ReputationRegistrySelfFeedback(agentId, msg.sender);
        }
        uint64 index = ++_lastIndex[agentId][msg.sender];
        if (index == 1) _clients[agentId].push(msg.sender);
        _feedback[agentId][msg.sender][index] =
            Feedback({value: value, valueDecimals: valueDecimals, isRevoked: false, tag1: tag1, tag2: tag2});
        _emitNewFeedback(agentId, index, value, valueDecimals, tag1, tag2, endpoint, feedbackURI, feedbackHash);
    }

    /// @inheritdoc IReputationRegistry
    function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external {
        Feedback storage entry = _existing(agentId, msg.sender, feedbackIndex);
        if (entry.isRevoked) revert ReputationRegistryAlreadyRevoked(agentId, msg.sender, feedbackIndex);
        entry.isRevoked = true;
        emit FeedbackRevoked(agentId, msg.sender, feedbackIndex);
    }

    /// @inheritdoc IReputationRegistry
    function appendResponse(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        string calldata responseURI,
        bytes32 responseHash
    ) external {
        if (bytes(responseURI).length == 0) revert ReputationRegistryEmptyResponse();
        _existing(agentId, clientAddress, feedbackIndex);
        if (_responseCount[agentId][clientAddress][feedbackIndex][msg.sender]++ == 0) {
            _responders[agentId][clientAddress][feedbackIndex].push(msg.sender);
        }
        emit ResponseAppended(agentId, clientAddress, feedbackIndex, msg.sender, responseURI, responseHash);
    }

    /// @inheritdoc IReputationRegistry
    function getSummary(uint256 agentId, address[] calldata clientAddresses, string calldata tag1, string calldata tag2)
        external
        view
        returns (uint64 count, int128 summaryValue, uint8 summaryValueDecimals)
    {
        if (clientAddresses.length == 0) revert ReputationRegistryClientsRequired();
        int256 sumWad;
        uint64[19] memory perDecimals;
        for (uint256 i; i < clientAddresses.length; ++i) {
            (int256 clientSum, uint64 clientCount) =
                _sumOf(agentId, clientAddresses[i], _filter(tag1), _filter(tag2), perDecimals);
            sumWad += clientSum;
            count += clientCount;
        }
        if (count == 0) return (0, 0, 0);
        uint64 most;
        for (uint8 d; d <= MAX_VALUE_DECIMALS; ++d) {
            if (perDecimals[d] > most) (most, summaryValueDecimals) = (perDecimals[d], d);
        }
        int256 averageWad = sumWad / int256(uint256(count));
        summaryValue = (averageWad / int256(10 ** (MAX_VALUE_DECIMALS - summaryValueDecimals))).toInt128();
    }

    /// @inheritdoc IReputationRegistry
    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        external
        view
        returns (int128 value, uint8 valueDecimals, string memory tag1, string memory tag2, bool isRevoked)
    {
        Feedback storage entry = _existing(agentId, clientAddress, feedbackIndex);
        return (entry.value, entry.valueDecimals, entry.tag1, entry.tag2, entry.isRevoked);
    }

    /// @inheritdoc IReputationRegistry
    /// @dev The columns are built by {_list} (one count pass, one fill pass).
    function readAllFeedback(
        uint256 agentId,
        address[] memory clientAddresses,
        string memory tag1,
        string memory tag2,
        bool includeRevoked
    )
        public
        view
        returns (
            address[] memory clients,
            uint64[] memory feedbackIndexes,
            int128[] memory values,
            uint8[] memory valueDecimals,
            string[] memory tag1s,
            string[] memory tag2s,
            bool[] memory revokedStatuses
        )
    {
        Listing memory listing = _list(
            agentId,
            clientAddresses.length != 0 ? clientAddresses : _clients[agentId],
            _filter(tag1),
            _filter(tag2),
            includeRevoked
        );
        return (
            listing.clients,
            listing.feedbackIndexes,
            listing.values,
            listing.valueDecimals,
            listing.tag1s,
            listing.tag2s,
            listing.revokedStatuses
        );
    }

    /// @inheritdoc IReputationRegistry
    function getResponseCount(uint256 agentId, address clientAddress, uint64 feedbackIndex, address[] calldata responders)
        external
        view
        returns (uint64 count)
    {
        if (clientAddress == address(0)) {
            address[] storage clients = _clients[agentId];
            for (uint256 i; i < clients.length; ++i) {
                count += _responsesToAll(agentId, clients[i], responders);
            }
        } else if (feedbackIndex == 0) {
            count = _responsesToAll(agentId, clientAddress, responders);
        } else {
            count = _responsesTo(agentId, clientAddress, feedbackIndex, responders);
        }
    }

    /// @inheritdoc IReputationRegistry
    function getClients(uint256 agentId) external view returns (address[] memory) {
        return _clients[agentId];
    }

    /// @inheritdoc IReputationRegistry
    function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64) {
        return _lastIndex[agentId][clientAddress];
    }

    /// @dev Its own frame: the event's eleven fields do not fit beside giveFeedback's calldata strings.
    function _emitNewFeedback(
        uint256 agentId,
        uint64 index,
        int128 value,
        uint8 valueDecimals,
        string memory tag1,
        string memory tag2,
        string memory endpoint,
        string memory feedbackURI,
        bytes32 feedbackHash
    ) private {
        emit NewFeedback(
            agentId, msg.sender, index, value, valueDecimals, tag1, tag1, tag2, endpoint, feedbackURI, feedbackHash
        );
    }

    /// @dev Sum (at 18 decimals) and count of one client's non-revoked feedback matching the tags; tallies the
    /// entries' decimals into `perDecimals`.
    function _sumOf(
        uint256 agentId,
        address client,
        bytes32 tag1Hash,
        bytes32 tag2Hash,
        uint64[19] memory perDecimals
    ) private view returns (int256 sumWad, uint64 count) {
        uint64 last = _lastIndex[agentId][client];
        for (uint64 j = 1; j <= last; ++j) {
            Feedback storage entry = _feedback[agentId][client][j];
            if (entry.isRevoked || !_tagsMatch(entry, tag1Hash, tag2Hash)) continue;
            sumWad += int256(entry.value) * int256(10 ** (MAX_VALUE_DECIMALS - entry.valueDecimals));
            ++perDecimals[entry.valueDecimals];
            ++count;
        }
    }

    function _existing(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        private
        view
        returns (Feedback storage)
    {
        if (feedbackIndex == 0 || feedbackIndex > _lastIndex[agentId][clientAddress]) {
            revert ReputationRegistryUnknownFeedback(agentId, clientAddress, feedbackIndex);
        }
        return _feedback[agentId][clientAddress][feedbackIndex];
    }

    function _responsesToAll(uint256 agentId, address clientAddress, address[] calldata responders)
        private
        view
        returns (uint64 count)
    {
        uint64 last = _lastIndex[agentId][clientAddress];
        for (uint64 j = 1; j <= last; ++j) {
            count += _responsesTo(agentId, clientAddress, j, responders);
        }
    }

    function _responsesTo(uint256 agentId, address clientAddress, uint64 feedbackIndex, address[] calldata responders)
        private
        view
        returns (uint64 count)
    {
        mapping(address => uint64) storage counts = _responseCount[agentId][clientAddress][feedbackIndex];
        if (responders.length == 0) {
            address[] storage all = _responders[agentId][clientAddress][feedbackIndex];
            for (uint256 k; k < all.length; ++k) {
                count += counts[all[k]];
            }
        } else {
            for (uint256 k; k < responders.length; ++k) {
                count += counts[responders[k]];
            }
        }
    }

    function _list(uint256 agentId, address[] memory from, bytes32 tag1Hash, bytes32 tag2Hash, bool includeRevoked)
        private
        view
        returns (Listing memory listing)
    {
        uint256 total;
        for (uint256 i; i < from.length; ++i) {
            uint64 last = _lastIndex[agentId][from[i]];
            for (uint64 j = 1; j <= last; ++j) {
                if (_selected(_feedback[agentId][from[i]][j], tag1Hash, tag2Hash, includeRevoked)) ++total;
            }
        }
        listing = Listing({
            clients: new address[](total),
            feedbackIndexes: new uint64[](total),
            values: new int128[](total),
            valueDecimals: new uint8[](total),
            tag1s: new string[](total),
            tag2s: new string[](total),
            revokedStatuses: new bool[](total)
        });
        uint256 n;
        for (uint256 i; i < from.length; ++i) {
            uint64 last = _lastIndex[agentId][from[i]];
            for (uint64 j = 1; j <= last; ++j) {
                Feedback storage entry = _feedback[agentId][from[i]][j];
                if (!_selected(entry, tag1Hash, tag2Hash, includeRevoked)) continue;
                listing.clients[n] = from[i];
                listing.feedbackIndexes[n] = j;
                listing.values[n] = entry.value;
                listing.valueDecimals[n] = entry.valueDecimals;
                listing.tag1s[n] = entry.tag1;
                listing.tag2s[n] = entry.tag2;
                listing.revokedStatuses[n] = entry.isRevoked;
                ++n;
            }
        }
    }

    function _selected(Feedback storage entry, bytes32 tag1Hash, bytes32 tag2Hash, bool includeRevoked)
        private
        view
        returns (bool)
    {
        return (includeRevoked || !entry.isRevoked) && _tagsMatch(entry, tag1Hash, tag2Hash);
    }

    /// @dev A tag filter: the hash of the tag, zero (any tag) for an empty one.
    function _filter(string memory tag) private pure returns (bytes32) {
        return bytes(tag).length == 0 ? bytes32(0) : keccak256(bytes(tag));
    }

    function _tagsMatch(Feedback storage entry, bytes32 tag1Hash, bytes32 tag2Hash) private view returns (bool) {
        return (tag1Hash == 0 || tag1Hash == keccak256(bytes(entry.tag1)))
            && (tag2Hash == 0 || tag2Hash == keccak256(bytes(entry.tag2)));
    }
}
