-- The random match queue (issue 21 item 1): live hosts waiting for any opponent, matched by the
-- tick (one node at a time) by country first and then by the size of their audience, or dropped
-- when their wait is over (`until`).
CREATE TABLE pk_queue (
  uid            bigint PRIMARY KEY REFERENCES users (uid) ON DELETE CASCADE,
  vid            text NOT NULL REFERENCES lives (vid) ON DELETE CASCADE,
  round_seconds  int NOT NULL CHECK (round_seconds BETWEEN 60 AND 600),
  joined_at      timestamptz NOT NULL DEFAULT now(),
  until          timestamptz NOT NULL
);
