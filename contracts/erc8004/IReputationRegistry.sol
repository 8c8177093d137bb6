// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title ERC-8004 Reputation Registry
/// @notice The interface ERC-8004 ("Trustless Agents") publishes for posting and reading feedback on agents of one
/// identity registry. A client's feedback on an agent is numbered from 1 per (agent, client).
interface IReputationRegistry {
    /// @notice `clientAddress` gave feedback number `feedbackIndex` to `agentId`. `endpoint`, `feedbackURI` and
    /// `feedbackHash` (keccak256 of the document at `feedbackURI`) are emitted only, not stored.
    event NewFeedback(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        int128 value,
        uint8 valueDecimals,
        string indexed indexedTag1,
        string tag1,
        string tag2,
        string endpoint,
        string feedbackURI,
        bytes32 feedbackHash
    );
    /// @notice `clientAddress` revoked its feedback `feedbackIndex` on `agentId`.
    event FeedbackRevoked(uint256 indexed agentId, address indexed clientAddress, uint64 indexed feedbackIndex);
    /// @notice `responder` answered feedback `feedbackIndex` of `clientAddress` on `agentId` with the document at
    /// `responseURI` (keccak256 `responseHash`).
    event ResponseAppended(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        address indexed responder,
        string responseURI,
        bytes32 responseHash
    );

    /// @notice The identity registry whose agents this registry rates.
    function getIdentityRegistry() external view returns (address identityRegistry);

    /// @notice Gives feedback to an existing agent; refused from the agent's owner and its operators.
    /// @param value signed fixed-point value with `valueDecimals` (0-18) decimals.
    function giveFeedback(
        uint256 agentId,
        int128 value,
        uint8 valueDecimals,
        string calldata tag1,
        string calldata tag2,
        string calldata endpoint,
        string calldata feedbackURI,
        bytes32 feedbackHash
    ) external;

    /// @notice Revokes the caller's feedback `feedbackIndex` on `agentId` (once).
    function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external;

    /// @notice Anyone may answer an existing feedback (a refund shown by the agent, a spam tag by an aggregator).
    function appendResponse(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        string calldata responseURI,
        bytes32 responseHash
    ) external;

    /// @notice Count and average of the non-revoked feedback of `clientAddresses` (required, non-empty) on
    /// `agentId`, optionally only with `tag1` / `tag2` (empty = any). The average is computed at 18 decimals and
    /// answered with the most frequent `valueDecimals` of the counted entries.
    function getSummary(uint256 agentId, address[] calldata clientAddresses, string calldata tag1, string calldata tag2)
        external
        view
        returns (uint64 count, int128 summaryValue, uint8 summaryValueDecimals);

    /// @notice One stored feedback entry.
    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        external
        view
        returns (int128 value, uint8 valueDecimals, string memory tag1, string memory tag2, bool isRevoked);

    /// @notice All feedback on `agentId`, optionally only from `clientAddresses` (empty = every client), with
    /// `tag1` / `tag2` (empty = any), revoked entries only when `includeRevoked`.
    function readAllFeedback(
        uint256 agentId,
        address[] calldata clientAddresses,
        string calldata tag1,
        string calldata tag2,
        bool includeRevoked
    )
        external
        view
        returns (
            address[] memory clients,
            uint64[] memory feedbackIndexes,
            int128[] memory values,
            uint8[] memory valueDecimals,
            string[] memory tag1s,
            string[] memory tag2s,
            bool[] memory revokedStatuses
        );

    /// @notice Number of responses on `agentId`'s feedback: all clients when `clientAddress` is zero, all of its
    /// feedback when `feedbackIndex` is 0, from every responder when `responders` is empty.
    function getResponseCount(uint256 agentId, address clientAddress, uint64 feedbackIndex, address[] calldata responders)
        external
        view
        returns (uint64 count);

    /// @notice Every address that gave `agentId` feedback, in order of their first feedback.
    function getClients(uint256 agentId) external view returns (address[] memory);

    /// @notice The number of feedback entries `clientAddress` gave `agentId` (its last feedbackIndex).
    function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64);
}
