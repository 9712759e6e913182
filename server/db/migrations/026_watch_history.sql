-- Recently watched (issue 19 item 5; spec §7 live/getRecentlyVideo): the hosts each person
-- watched, newest first, one row per host (watching them again moves them up). Written when the
-- person's player starts playing a broadcast; the newest 30 are kept.
CREATE TABLE watch_history (
  uid       bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  host_uid  bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  vid       text NOT NULL,
  at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (uid, host_uid)
);
CREATE INDEX watch_history_recent_idx ON watch_history (uid, at DESC);
