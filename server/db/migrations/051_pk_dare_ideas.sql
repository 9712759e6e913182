-- Dares the winning room suggests (issue 21 item 3, spec §4 "punish (dare)"): during the dare,
-- signed-in people in the winner's room suggest one each (a new one replaces theirs); the winning
-- host picks one of them or types their own. The dare picked keeps who suggested it.
CREATE TABLE pk_dare_ideas (
  battle_id  bigint NOT NULL REFERENCES battles (id) ON DELETE CASCADE,
  uid        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  text       text NOT NULL CHECK (length(text) BETWEEN 1 AND 80),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (battle_id, uid)
);
CREATE INDEX pk_dare_ideas_newest ON pk_dare_ideas (battle_id, created_at DESC);

ALTER TABLE battles ADD COLUMN dare_by bigint REFERENCES users (uid) ON DELETE SET NULL;
