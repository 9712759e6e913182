-- The live room (issue 5): hosts' permanent blocks, reports for the staff console, and what
-- each fan has given a host (top fans of a broadcast and of all time; gifts feed it).

-- Spec §6: a host blocks a viewer permanently, from every broadcast of theirs.
CREATE TABLE room_blocks (
  host_uid     bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  blocked_uid  bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  -- The broadcast it happened in (kept for the staff console).
  vid          text REFERENCES lives (vid) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (host_uid, blocked_uid),
  CHECK (host_uid <> blocked_uid)
);

-- Spec §3 report: one of nine categories and up to 100 characters of text.
CREATE TABLE reports (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  reporter     bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  target_uid   bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  vid          text REFERENCES lives (vid) ON DELETE SET NULL,
  category     text NOT NULL CHECK (category IN ('adult', 'harassment', 'minor', 'self_harm',
                 'cover_title', 'violence', 'drugs', 'copyright', 'other')),
  -- 100 characters as people count them (graphemes, checked by the service); a backstop here.
  reason       text NOT NULL DEFAULT '' CHECK (char_length(reason) <= 400),
  status       text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'actioned', 'dismissed')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  CHECK (reporter <> target_uid)
);
CREATE INDEX reports_open_idx ON reports (created_at DESC) WHERE status = 'open';
CREATE INDEX reports_target_idx ON reports (target_uid, created_at DESC);

-- Coins a fan gave a host in one broadcast (top fans of this broadcast; summed over the host's
-- broadcasts, of all time). One row per (broadcast, fan): a gift updates one row, not two.
CREATE TABLE fan_contributions (
  vid          text NOT NULL REFERENCES lives (vid) ON DELETE CASCADE,
  fan_uid      bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  host_uid     bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  coins        bigint NOT NULL CHECK (coins > 0),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (vid, fan_uid)
);
-- No index on coins: a gift's update then stays a heap-only (HOT) update; a broadcast's fans
-- are read by the primary key and sorted.
CREATE INDEX fan_contributions_host_idx ON fan_contributions (host_uid, fan_uid);
