-- What each node's in-memory search index (server/modules/discovery/people-index.ts) reads to stay
-- equal to the database: a change number on each person, taken from one sequence whenever they
-- join or change what search shows of them (nickname, avatar, country), and on each follow count
-- when it moves. A node reads the rows numbered above the last it has seen, every second.
CREATE SEQUENCE search_feed_seq;
ALTER TABLE users ADD COLUMN search_seq bigint NOT NULL DEFAULT nextval('search_feed_seq');
CREATE INDEX users_search_seq_idx ON users (search_seq);
-- (One line each: migrations are split into statements at a semicolon that ends a line.)
CREATE FUNCTION users_search_seq() RETURNS trigger LANGUAGE plpgsql
  AS $$ BEGIN NEW.search_seq := nextval('search_feed_seq'); RETURN NEW; END $$;
CREATE TRIGGER users_search_seq BEFORE UPDATE OF nickname, face, country ON users FOR EACH ROW
  WHEN (OLD.nickname IS DISTINCT FROM NEW.nickname OR OLD.face IS DISTINCT FROM NEW.face OR OLD.country IS DISTINCT FROM NEW.country)
  EXECUTE FUNCTION users_search_seq();

ALTER TABLE follow_counts ADD COLUMN search_seq bigint NOT NULL DEFAULT nextval('search_feed_seq');
CREATE INDEX follow_counts_search_seq_idx ON follow_counts (search_seq);
CREATE TRIGGER follow_counts_search_seq BEFORE UPDATE OF followers ON follow_counts FOR EACH ROW
  WHEN (OLD.followers IS DISTINCT FROM NEW.followers)
  EXECUTE FUNCTION users_search_seq();
