-- Follows (issue 5): who follows whom. Counts are read with an index per direction.
CREATE TABLE follows (
  follower    bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  followee    bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (follower, followee),
  CHECK (follower <> followee)
);
CREATE INDEX follows_followee_idx ON follows (followee, created_at DESC);
