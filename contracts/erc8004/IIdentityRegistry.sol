// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title ERC-8004 Identity Registry
/// @notice The interface ERC-8004 ("Trustless Agents") publishes for its per-chain identity registry: an ERC-721
/// whose tokenId is the `agentId` and whose tokenURI (the `agentURI`) resolves to the agent's registration file.
interface IIdentityRegistry {
    /// @notice One on-chain metadata entry given to {register}.
    struct MetadataEntry {
        string metadataKey;
        bytes metadataValue;
    }

    /// @notice Agent `agentId` was registered by `owner` with `agentURI` (empty when set later).
    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);
    /// @notice On-chain metadata `metadataKey` of `agentId` is now `metadataValue` (the reserved key `agentWallet`
    /// included: set at registration, by {setAgentWallet}, cleared by {unsetAgentWallet} and by transfers).
    event MetadataSet(
        uint256 indexed agentId,
        string indexed indexedMetadataKey,
        string metadataKey,
        bytes metadataValue
    );
    /// @notice The agentURI of `agentId` is now `newURI`, set by `updatedBy` (its owner or an operator).
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);

    /// @notice Registers a new agent owned by the caller, with no agentURI yet.
    function register() external returns (uint256 agentId);

    /// @notice Registers a new agent owned by the caller whose registration file is at `agentURI`.
    function register(string calldata agentURI) external returns (uint256 agentId);

    /// @notice Registers a new agent owned by the caller with `agentURI` and extra on-chain metadata (the key
    /// `agentWallet` is reserved and refused).
    function register(string calldata agentURI, MetadataEntry[] calldata metadata) external returns (uint256 agentId);

    /// @notice Points `agentId` at a new registration file. Owner or operator only.
    function setAgentURI(uint256 agentId, string calldata newURI) external;

    /// @notice The on-chain metadata value of `agentId` under `metadataKey` (empty when unset).
    function getMetadata(uint256 agentId, string calldata metadataKey) external view returns (bytes memory);

    /// @notice Sets on-chain metadata of `agentId`. Owner or operator only; `agentWallet` is reserved.
    function setMetadata(uint256 agentId, string calldata metadataKey, bytes calldata metadataValue) external;

    /// @notice Sets the wallet where `agentId` receives payments, with the new wallet's proof of control: an EIP-712
    /// `AgentWalletSet(agentId,newWallet,owner,deadline)` signature (ERC-1271 for contract wallets) by `newWallet`,
    /// expiring at `deadline` (no later than five minutes from now). Owner or operator only.
    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature) external;

    /// @notice The verified payment wallet of `agentId` (zero when unset or cleared by a transfer).
    function getAgentWallet(uint256 agentId) external view returns (address);

    /// @notice Clears the payment wallet of `agentId`. Owner or operator only.
    function unsetAgentWallet(uint256 agentId) external;

    /// @notice Whether `spender` is the owner of `agentId` or an operator it approved (for this token or all);
    /// reverts for an agent that does not exist. The reputation registry refuses feedback from these.
    function isAuthorizedOrOwner(address spender, uint256 agentId) external view returns (bool);
}
