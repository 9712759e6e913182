-- PK wins on the leaderboards (issue 21 item 6): a third board, 'pk', whose amount is battles won,
-- by day, week and month like the others. A battle's end appends its winner here in its own
-- transaction (server/modules/pk), and the leaderboards' roll-up counts and deletes the rows with
-- the gifts' (migration 024).
CREATE TABLE leaderboard_wins_pending (
  uid  bigint NOT NULL,
  at   timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE leaderboard_buckets DROP CONSTRAINT leaderboard_buckets_role_check;
ALTER TABLE leaderboard_buckets ADD CONSTRAINT leaderboard_buckets_role_check CHECK (role IN ('host', 'gifter', 'pk'));
