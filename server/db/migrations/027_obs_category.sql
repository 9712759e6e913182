-- What an OBS broadcast is about (issue 19): OBS cannot ask, so the broadcaster chooses it on the
-- OBS page, kept with their stream key; each broadcast from OBS starts with it (explore's game
-- tab lists 'game').
ALTER TABLE stream_keys ADD COLUMN category text NOT NULL DEFAULT 'chat'
  CHECK (category IN ('chat', 'music', 'dance', 'game', 'talent', 'outdoor'));
