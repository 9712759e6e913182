-- Search for people and live rooms (issue 19 item 3): trigram indexes (pg_trgm, which PGlite
-- ships too) over a folded form of nicknames and titles, people's search history, and the log
-- that trending searches are counted from.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- The form both a name and a query are compared in, so that what people type finds what they
-- mean: lower case; compatibility forms folded (full-width Latin, ligatures, half-width kana);
-- Latin diacritics dropped (Vietnamese typed without its tones finds "Nguyễn"); Arabic short
-- vowels, hamza marks, the dagger alif and tatweel dropped, alif maqsura read as yeh and teh
-- marbuta as heh (the usual Arabic search folding). Devanagari and CJK keep every mark: they are
-- part of the letter. IMMUTABLE, so indexes can be built on it; the same function folds queries.
CREATE FUNCTION search_fold(t text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$
    SELECT translate(
      regexp_replace(normalize(lower(t), NFKD), '[\u0300-\u036f\u064b-\u065f\u0670\u0640]', '', 'g'),
      'đðىة', 'ddيه')
  $$;

-- The folded forms, stored: a search compares thousands of names, and folding each one per
-- query (NFKD and a regular expression) cost more than the rest of the search.
ALTER TABLE users ADD COLUMN search_name text GENERATED ALWAYS AS (search_fold(nickname)) STORED;
ALTER TABLE lives ADD COLUMN search_title text GENERATED ALWAYS AS (search_fold(title)) STORED;

-- People by nickname: word similarity (a word of the name, typos in it) and containment through
-- the trigram index, and a prefix walk for queries too short to have a trigram (one or two
-- letters, a Chinese name being typed) and for names that start with the query.
CREATE INDEX users_search_trgm_idx ON users USING gin (search_name gin_trgm_ops);
CREATE INDEX users_search_prefix_idx ON users (search_name text_pattern_ops);

-- The words of each name, folded, for search as one types: a word that starts with what was
-- typed is a walk of a btree, however common the word. (Trigrams of common syllables have posting
-- lists of hundreds of thousands of names: they are kept for typos, when prefixes find little.)
CREATE TABLE search_words (
  word  text NOT NULL,
  uid   bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE
);
CREATE INDEX search_words_prefix_idx ON search_words (word text_pattern_ops, uid);
CREATE INDEX search_words_uid_idx ON search_words (uid);
-- Kept by triggers (one line each: migrations are split at a semicolon that ends a line): new
-- people a statement at a time (sign-ups, seeds of a million), a changed nickname a row at a time.
CREATE FUNCTION search_words_added() RETURNS trigger LANGUAGE plpgsql
  AS $$ BEGIN INSERT INTO search_words (word, uid) SELECT DISTINCT w, a.uid FROM added a, unnest(string_to_array(a.search_name, ' ')) w WHERE w <> ''; RETURN NULL; END $$;
CREATE TRIGGER search_words_added AFTER INSERT ON users REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION search_words_added();
CREATE FUNCTION search_words_renamed() RETURNS trigger LANGUAGE plpgsql
  AS $$ BEGIN DELETE FROM search_words WHERE uid = NEW.uid; INSERT INTO search_words (word, uid) SELECT DISTINCT w, NEW.uid FROM unnest(string_to_array(NEW.search_name, ' ')) w WHERE w <> ''; RETURN NULL; END $$;
CREATE TRIGGER search_words_renamed AFTER UPDATE OF nickname ON users
  FOR EACH ROW WHEN (OLD.nickname IS DISTINCT FROM NEW.nickname) EXECUTE FUNCTION search_words_renamed();
INSERT INTO search_words (word, uid)
  SELECT DISTINCT w, u.uid FROM users u, unnest(string_to_array(u.search_name, ' ')) w WHERE w <> '';

-- A broadcast's host, folded, on its row: live rooms are found by their host's name too, and
-- looking among the few thousand broadcasts on air beats looking among a million people and
-- keeping those on air. Set as the broadcast is made (a name changed during it is not followed).
ALTER TABLE lives ADD COLUMN search_host text NOT NULL DEFAULT '';
-- (One line: migrations are split into statements at a semicolon that ends a line.)
CREATE FUNCTION lives_search_host() RETURNS trigger LANGUAGE plpgsql
  AS $$ BEGIN NEW.search_host := coalesce((SELECT search_name FROM users WHERE uid = NEW.uid), ''); RETURN NEW; END $$;
CREATE TRIGGER lives_search_host BEFORE INSERT ON lives FOR EACH ROW EXECUTE FUNCTION lives_search_host();
UPDATE lives l SET search_host = u.search_name FROM users u WHERE u.uid = l.uid;

-- Live rooms by title and host: only broadcasts on air are searched, so only they are indexed.
CREATE INDEX lives_search_trgm_idx ON lives USING gin (search_title gin_trgm_ops) WHERE status = 'live';
CREATE INDEX lives_search_prefix_idx ON lives (search_title text_pattern_ops) WHERE status = 'live';
CREATE INDEX lives_search_host_trgm_idx ON lives USING gin (search_host gin_trgm_ops) WHERE status = 'live';
CREATE INDEX lives_search_host_prefix_idx ON lives (search_host text_pattern_ops) WHERE status = 'live';

-- What each person searched for, newest first; one row per query (searching again moves it up).
CREATE TABLE search_history (
  uid      bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  folded   text NOT NULL,
  q        text NOT NULL CHECK (length(q) BETWEEN 1 AND 100),
  at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (uid, folded)
);
CREATE INDEX search_history_recent_idx ON search_history (uid, at DESC);

-- Searches made, for trending: `who` is a user id or a hash of the address, one row per person
-- and query, so that trending counts people, not requests. Rows older than two days are deleted as trending is computed.
CREATE TABLE search_log (
  folded   text NOT NULL,
  q        text NOT NULL,
  who      text NOT NULL,
  at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (folded, who)
);
CREATE INDEX search_log_at_idx ON search_log (at);
