-- Live broadcasts (spec §4 live room states) and OBS stream keys.
CREATE TABLE lives (
  vid                 text PRIMARY KEY CHECK (vid ~ '^[A-Za-z0-9]{12}$'),
  uid                 bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  title               text NOT NULL CHECK (length(title) BETWEEN 1 AND 60),
  cover               text,
  orientation         text NOT NULL DEFAULT 'portrait' CHECK (orientation IN ('portrait', 'landscape')),
  status              text NOT NULL DEFAULT 'created'
                      CHECK (status IN ('created', 'live', 'ended', 'deleted', 'expired')),
  source              text NOT NULL DEFAULT 'studio' CHECK (source IN ('studio', 'obs')),
  -- The bearer token the studio publishes with (WHIP), stored as SHA-256.
  publish_token_hash  bytea UNIQUE,
  created_at          timestamptz NOT NULL DEFAULT now(),
  started_at          timestamptz,
  ended_at            timestamptz,
  peak_viewers        int NOT NULL DEFAULT 0 CHECK (peak_viewers >= 0),
  CHECK (status IN ('created', 'live') OR ended_at IS NOT NULL)
);
-- One broadcast at a time per broadcaster.
CREATE UNIQUE INDEX lives_one_active_idx ON lives (uid) WHERE status IN ('created', 'live');
CREATE INDEX lives_now_idx ON lives (started_at DESC) WHERE status = 'live';
CREATE INDEX lives_uid_idx ON lives (uid, created_at DESC);

-- OBS (WHIP) stream keys: one per broadcaster, stored as SHA-256, regenerated on demand.
CREATE TABLE stream_keys (
  uid         bigint PRIMARY KEY REFERENCES users (uid) ON DELETE CASCADE,
  key_hash    bytea NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now()
);
