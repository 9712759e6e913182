-- Short videos (issue 23 item 1): uploads transcoded to H.264/AAC and clips cut from replays.
-- A row is made as the upload or clip is accepted (processing) and becomes ready (or failed) when
-- its file is stored; `progress` is written by the node doing the work, so any node can answer.
CREATE TABLE short_videos (
  id           text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9]{12}$'),
  uid          bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  title        text NOT NULL DEFAULT '' CHECK (char_length(title) <= 320),
  source       text NOT NULL CHECK (source IN ('upload', 'clip')),
  from_vid     text,
  status       text NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'ready', 'failed', 'deleted')),
  progress     real NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 1),
  error        text,
  url          text,
  poster       text,
  bytes        bigint NOT NULL DEFAULT 0,
  duration_ms  integer NOT NULL DEFAULT 0 CHECK (duration_ms BETWEEN 0 AND 61000),
  width        integer NOT NULL DEFAULT 0,
  height       integer NOT NULL DEFAULT 0,
  views        bigint NOT NULL DEFAULT 0 CHECK (views >= 0),
  likes        bigint NOT NULL DEFAULT 0 CHECK (likes >= 0),
  comments     bigint NOT NULL DEFAULT 0 CHECK (comments >= 0),
  -- The hot ranking (docs/decisions.md): engagement on a log scale plus the time it was posted,
  -- so that it only changes when the video's counts do and an index keeps the order.
  score        double precision NOT NULL DEFAULT 0,
  wonderful_at timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  CHECK (status <> 'ready' OR (url IS NOT NULL AND duration_ms > 0))
);
CREATE INDEX short_videos_hot_idx ON short_videos (score DESC, id) WHERE status = 'ready';
CREATE INDEX short_videos_new_idx ON short_videos (created_at DESC, id) WHERE status = 'ready';
CREATE INDEX short_videos_wonderful_idx ON short_videos (wonderful_at DESC, id)
  WHERE status = 'ready' AND wonderful_at IS NOT NULL;
CREATE INDEX short_videos_uid_idx ON short_videos (uid, created_at DESC);

CREATE TABLE short_video_likes (
  video_id   text NOT NULL REFERENCES short_videos (id) ON DELETE CASCADE,
  uid        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (video_id, uid)
);

CREATE TABLE short_video_comments (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  video_id   text NOT NULL REFERENCES short_videos (id) ON DELETE CASCADE,
  uid        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  text       text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 3200),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX short_video_comments_video_idx ON short_video_comments (video_id, id DESC);
