-- An audio room's version, raised at each change of its seats, hands or speakers: the seats the
-- server pushes over /ws carry it, so a page that hears two states from two nodes keeps the newer.
ALTER TABLE audio_rooms ADD COLUMN version bigint NOT NULL DEFAULT 0;
