// The background queues by name (pg-boss): jobs/index.ts registers them, ops/ reports on them, so they live below both.
export const QUEUES = {
  uptimePass: "uptime-check",
  uptimeBatch: "uptime-batch",
  reputationDaily: "reputation-update",
  verificationExpiry: "verification-expiry",
  reputationPoll: "reputation-poll",
  searchStats: "search-stats",
  webhookDispatch: "webhook-dispatch",
  subscriptionRuns: "subscription-runs",
  keyCustody: "key-custody",
  profilePublish: "profile-publish",
  prune: "storage-prune",
  feeSweep: "fee-sweep",
  rewardPayout: "reward-payout",
  runExits: "run-exits",
  bountyEvents: "bounty-events",
} as const;
