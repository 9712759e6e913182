-- Leaderboards (issue 19 item 4): top hosts by diamonds received and top gifters by coins sent,
-- by day, week and month in the cash-out week's time zone, everywhere and by country. Kept up to
-- date by incremental roll-ups of the gifts' pending rows, never by reading the gifts per request
-- (docs/decisions.md, "Leaderboards").

-- Gifts not yet counted on the boards, as fan_pending is for top fans: the gift batch statement
-- (server/modules/ledger/repo.ts) appends one row per gift it pays, in the gift's own transaction
-- (no index, no foreign key, no upsert on the hot path), and the leaderboard module's roll-up
-- deletes the rows it counts in the statement that counts them. A row exists exactly when its
-- gift committed and is not counted yet, whatever order transaction ids commit in. `at` is the
-- gift's transaction time, the same now() as its ledger transaction's created_at.
CREATE TABLE leaderboard_pending (
  sender    bigint NOT NULL,
  host      bigint NOT NULL,
  coins     bigint NOT NULL CHECK (coins > 0),
  diamonds  bigint NOT NULL CHECK (diamonds >= 0),
  at        timestamptz NOT NULL DEFAULT now()
);

-- The gifts of the last month made before this migration, counted by the first roll-up (one
-- scan of the recent ledger, once; the roll-up files them by the configured time zone).
INSERT INTO leaderboard_pending (sender, host, coins, diamonds, at)
SELECT t.actor_uid, (t.meta->>'host')::bigint, (t.meta->>'coins')::bigint,
       coalesce((t.meta->>'diamonds')::bigint, 0), t.created_at
FROM ledger_transactions t
WHERE t.kind = 'gift' AND t.created_at >= now() - interval '32 days' AND t.actor_uid IS NOT NULL
  AND t.meta ? 'host' AND (t.meta->>'coins')::bigint > 0;

-- What each person gained in each period: kind 'day', 'week' or 'month', `start` its first day
-- in the cash-out time zone (a Monday for weeks, the 1st for months), role 'host' (diamonds
-- received) or 'gifter' (coins sent). `reached_at` is the time of the last gift counted: equal
-- amounts rank by who reached theirs first.
--
-- The country is captured here at roll-up time rather than joined from users at read time: a
-- country's board is then a walk down its own index (kind, start, role, country, amount), where
-- a join would walk the whole world's board and keep one row in fifty for a small country. It is
-- the person's country as of their last gift counted in the period; a changed profile moves
-- them at their next gift.
CREATE TABLE leaderboard_buckets (
  kind        text NOT NULL CHECK (kind IN ('day', 'week', 'month')),
  start       date NOT NULL,
  uid         bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  role        text NOT NULL CHECK (role IN ('host', 'gifter')),
  country     text NOT NULL,
  amount      bigint NOT NULL CHECK (amount > 0),
  reached_at  timestamptz NOT NULL,
  PRIMARY KEY (kind, start, uid, role)
);
-- In the boards' order, so a page and a reader's rank (the rows above theirs) walk an index.
CREATE INDEX leaderboard_buckets_rank_idx
  ON leaderboard_buckets (kind, start, role, amount DESC, reached_at, uid);
CREATE INDEX leaderboard_buckets_country_idx
  ON leaderboard_buckets (kind, start, role, country, amount DESC, reached_at, uid);
