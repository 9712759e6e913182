-- The festival programme (issue 23 item 2; spec §1, §3 programme items, §4 and §9 expiry): staff
-- make a programme (a name in each language, a schedule of slots, each a host and a time); people
-- follow it and are notified as each slot starts (the go-live notifications' fan-out).
CREATE TABLE programmes (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- {"en": "…", "ar": "…", …}; English is required (the fallback).
  names       jsonb NOT NULL CHECK (jsonb_typeof(names) = 'object' AND names ? 'en'),
  -- The first slot's start and the last slot's end (etime, spec §3): lists drop it after.
  starts_at   timestamptz NOT NULL,
  ends_at     timestamptz NOT NULL,
  created_by  bigint REFERENCES users (uid) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (ends_at > starts_at)
);
CREATE INDEX programmes_ends_idx ON programmes (ends_at);

CREATE TABLE programme_slots (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  programme    bigint NOT NULL REFERENCES programmes (id) ON DELETE CASCADE,
  host         bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  title        text NOT NULL DEFAULT '' CHECK (char_length(title) <= 400),
  starts_at    timestamptz NOT NULL,
  ends_at      timestamptz NOT NULL,
  -- When its followers were told it started (once, by whichever node saw it first).
  notified_at  timestamptz,
  CHECK (ends_at > starts_at)
);
CREATE INDEX programme_slots_programme_idx ON programme_slots (programme, starts_at);
CREATE INDEX programme_slots_due_idx ON programme_slots (starts_at) WHERE notified_at IS NULL;

CREATE TABLE programme_follows (
  programme   bigint NOT NULL REFERENCES programmes (id) ON DELETE CASCADE,
  uid         bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (programme, uid)
);

-- A slot starting is told to the programme's followers by the same jobs and rows as a go-live.
ALTER TABLE notify_jobs ADD COLUMN programme bigint REFERENCES programmes (id) ON DELETE CASCADE;
ALTER TABLE notifications ADD COLUMN programme bigint REFERENCES programmes (id) ON DELETE CASCADE;
