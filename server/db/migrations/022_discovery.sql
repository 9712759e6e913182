-- Discovery (issue 19): what explore lists, the hot ranking and the follow counts need.

-- What a broadcast is about, chosen in the studio (explore's game tab lists 'game').
ALTER TABLE lives ADD COLUMN category text NOT NULL DEFAULT 'chat'
  CHECK (category IN ('chat', 'music', 'dance', 'game', 'talent', 'outdoor'));
-- People watching now, written by the node that has the media when its count changes.
ALTER TABLE lives ADD COLUMN viewers int NOT NULL DEFAULT 0 CHECK (viewers >= 0);

-- Follow counts kept with each follow and unfollow (in the same statement): a host with a million
-- followers is not counted row by row on every read.
CREATE TABLE follow_counts (
  uid        bigint PRIMARY KEY REFERENCES users (uid) ON DELETE CASCADE,
  followers  int NOT NULL DEFAULT 0 CHECK (followers >= 0),
  following  int NOT NULL DEFAULT 0 CHECK (following >= 0)
);
INSERT INTO follow_counts (uid, followers, following)
SELECT uid, sum(followers)::int, sum(following)::int FROM (
  SELECT followee AS uid, count(*) AS followers, 0 AS following FROM follows GROUP BY followee
  UNION ALL
  SELECT follower, 0, count(*) FROM follows GROUP BY follower
) c GROUP BY uid;

-- Marks staff give hosts: explore's official and fashion-house filters, its star tab, and the
-- featured filter (and the home page's banners).
CREATE TABLE host_marks (
  uid         bigint PRIMARY KEY REFERENCES users (uid) ON DELETE CASCADE,
  official    boolean NOT NULL DEFAULT false,
  star        boolean NOT NULL DEFAULT false,
  featured    boolean NOT NULL DEFAULT false,
  fashion     boolean NOT NULL DEFAULT false,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  updated_by  bigint REFERENCES users (uid) ON DELETE SET NULL
);

-- The broadcasts on air as explore lists them: a read model refreshed every few seconds by one
-- node at a time from lives, users, host_marks, follow_counts, follows and the gifts' top-fans
-- totals (server/modules/discovery/repo.ts), so that no list scans or ranks anything per request.
-- `coins` is the broadcast's gift total at the last refresh and `heat` the coins of the last few
-- minutes, decaying; `score` is the hot ranking (docs/decisions.md, "Discovery").
CREATE TABLE live_rank (
  vid          text PRIMARY KEY REFERENCES lives (vid) ON DELETE CASCADE,
  uid          bigint NOT NULL,
  score        double precision NOT NULL,
  viewers      int NOT NULL,
  started_at   timestamptz NOT NULL,
  -- started_at in seconds since the epoch: the new tab's order (a number, as the other orders).
  started_key  double precision NOT NULL,
  country      text NOT NULL,
  category     text NOT NULL,
  sex          smallint NOT NULL,
  newcomer     boolean NOT NULL,
  official     boolean NOT NULL,
  star         boolean NOT NULL,
  featured     boolean NOT NULL,
  fashion      boolean NOT NULL,
  coins        bigint NOT NULL DEFAULT 0,
  heat         double precision NOT NULL DEFAULT 0,
  follows      int NOT NULL DEFAULT 0,
  refreshed_at timestamptz NOT NULL DEFAULT now()
);
-- In the lists' order (the key, then vid, both descending), so a page is a walk down an index.
CREATE INDEX live_rank_score_idx ON live_rank (score DESC, vid DESC);
CREATE INDEX live_rank_country_idx ON live_rank (country, score DESC, vid DESC);
CREATE INDEX live_rank_viewers_idx ON live_rank (viewers DESC, vid DESC);
CREATE INDEX live_rank_new_idx ON live_rank (started_key DESC, vid DESC) WHERE newcomer;
CREATE INDEX live_rank_uid_idx ON live_rank (uid);
