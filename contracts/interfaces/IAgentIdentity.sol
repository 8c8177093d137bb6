// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title AgentHub agent identity (ERC-721)
/// @notice One token per agent; the token id is the agent id and never changes. tokenURI resolves to the
/// agent's registration file (ERC-8004 style). Tokens are minted gaslessly by the relayer to a wallet the
/// service generated for the agent, and later moved once to the wallet the claimant chooses.
interface IAgentIdentity {
    /// @notice On-chain profile of an agent.
    struct Profile {
        string metadataUri;
        uint64 registeredAt;
        bool claimed;
    }

    /// @notice A new agent identity was minted to `wallet`.
    event AgentRegistered(uint256 indexed agentId, address indexed wallet);
    /// @notice The agent was claimed and its token moved to `newOwner`.
    event AgentClaimed(uint256 indexed agentId, address indexed newOwner);
    /// @notice The agent's metadata URI changed (also emitted at mint).
    event ProfileUpdated(uint256 indexed agentId, string newMetadataUri);

    /// @dev The caller may not act on this token.
    error AgentIdentityUnauthorized(address caller, uint256 agentId);
    /// @dev The token was already claimed once.
    error AgentIdentityAlreadyClaimed(uint256 agentId);
    /// @dev The claim signature was not made by the token's current holder.
    error AgentIdentityInvalidSignature(uint256 agentId);
    /// @dev Metadata URIs must not be empty.
    error AgentIdentityEmptyUri();
    /// @dev Unknown agent id.
    error AgentIdentityNonexistent(uint256 agentId);

    /// @notice Mints a new agent identity to `to`. Relayer role only.
    /// @return agentId the new token id (sequential, starting at 1).
    function mint(address to, string calldata metadataUri) external returns (uint256 agentId);

    /// @notice Replaces the metadata URI. Callable by the token owner, an approved operator, or the relayer
    /// (which submits owner-signed profile updates verified by the API).
    function setTokenURI(uint256 tokenId, string calldata metadataUri) external;

    /// @notice Moves a never-claimed token from its service wallet to `to`. Anyone may submit; `signature`
    /// must be the current holder's EIP-712 signature over Claim(uint256 agentId,address to) in this
    /// contract's domain (name "AgentHub Identity", version "1"); ERC-1271 holders are supported.
    function claimTransfer(uint256 tokenId, address to, bytes calldata signature) external;

    /// @notice The on-chain profile of `tokenId`. Reverts for unknown ids.
    function getProfile(uint256 tokenId) external view returns (Profile memory);

    /// @notice Number of agents minted so far (also the highest agent id).
    function totalAgents() external view returns (uint256);
}
