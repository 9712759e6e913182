-- Audio rooms (issue 23 item 3): a broadcast without a picture whose host shares the stage with up
-- to seven co-hosts. The broadcast is a lives row like any other (its chat, gifts, blocks, reports
-- are the live room's); these rows are its seats and the requests to speak.
-- What a broadcast is: video (the studio, OBS) or an audio room; the live page sends an audio
-- room's viewers to its join page.
ALTER TABLE lives ADD COLUMN kind text NOT NULL DEFAULT 'video' CHECK (kind IN ('video', 'audio'));

CREATE TABLE audio_rooms (
  vid         text PRIMARY KEY REFERENCES lives (vid) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Co-hosts' seats (the host's, 0, is the broadcast's own). Muted by the host: they cannot unmute
-- themselves, and their voice is cut at the server.
CREATE TABLE audio_seats (
  vid         text NOT NULL REFERENCES audio_rooms (vid) ON DELETE CASCADE,
  uid         bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  seat        smallint NOT NULL CHECK (seat BETWEEN 1 AND 7),
  muted       boolean NOT NULL DEFAULT false,
  host_muted  boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (vid, uid),
  UNIQUE (vid, seat)
);

-- A raised hand (asked to speak) or the host's invitation, until answered.
CREATE TABLE audio_requests (
  vid         text NOT NULL REFERENCES audio_rooms (vid) ON DELETE CASCADE,
  uid         bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('hand', 'invite')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (vid, uid, kind)
);
