-- The chat around a reported moment (issue 24 item 2): the room's latest messages when the report
-- was made, kept with it (the room's own history is short and goes with the broadcast).
ALTER TABLE reports ADD COLUMN chat jsonb;

-- A suspension or ban lifted: by whom and why (lifted_at says when).
ALTER TABLE sanctions
  ADD COLUMN lifted_by bigint REFERENCES users (uid) ON DELETE SET NULL,
  ADD COLUMN lift_note text CHECK (char_length(lift_note) BETWEEN 1 AND 1000),
  ADD CONSTRAINT sanctions_lift_check CHECK ((lifted_at IS NULL) = (lift_note IS NULL) AND (kind <> 'warn' OR lifted_at IS NULL));
