-- Replays: every publishing session of a broadcast is recorded to one file (remuxed, not
-- transcoded); a broadcast's replay is its parts in order.
CREATE TABLE replay_parts (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  vid         text NOT NULL REFERENCES lives (vid) ON DELETE CASCADE,
  file        text NOT NULL UNIQUE CHECK (file ~ '^[A-Za-z0-9-]+\.webm$'),
  bytes       bigint NOT NULL CHECK (bytes > 0),
  started_at  timestamptz NOT NULL,
  ended_at    timestamptz NOT NULL,
  CHECK (ended_at >= started_at)
);
CREATE INDEX replay_parts_vid_idx ON replay_parts (vid, started_at);
