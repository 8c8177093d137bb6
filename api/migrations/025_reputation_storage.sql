-- Recomputes rewrite many api.reputation rows. The score index served no query (the leaderboard ranks agents that
-- have no row yet at 50, so it cannot use it, and search keeps its own index), and with it every score change was
-- a non-HOT update. Without it, and with room left on each page, most updates stay on their page (HOT) and touch
-- no index. The history's time index served no query either.
drop index if exists api.reputation_score_idx;
alter table api.reputation set (fillfactor = 80);
drop index if exists api.reputation_history_time_idx;
