-- A change number on each broadcast's card as search's in-memory index keeps it
-- (server/modules/discovery/search-index.ts): taken from migration 028's sequence whenever
-- something the card shows changes, on the broadcast (title, cover, …), on its host (nickname,
-- avatar, country) or in the marks staff give the host. Every two seconds each node reads the
-- broadcasts on air with this number and reads again only the cards whose number moved. It
-- replaces a hash of every card made on each read: with 10,000 broadcasts on air that hash cost
-- PostgreSQL 55-100 ms every two seconds, on the cores the nodes answer from. What moves all the
-- time (viewers, hot score, the newcomer mark of the ranking) is read as numbers instead.
ALTER TABLE lives ADD COLUMN card_seq bigint NOT NULL DEFAULT nextval('search_feed_seq');
-- (One line each: migrations are split into statements at a semicolon that ends a line.)
CREATE FUNCTION lives_card_seq() RETURNS trigger LANGUAGE plpgsql
  AS $$ BEGIN NEW.card_seq := nextval('search_feed_seq'); RETURN NEW; END $$;
-- search_title is made from title (a generated column, which a BEFORE trigger cannot see).
CREATE TRIGGER lives_card_seq BEFORE UPDATE ON lives FOR EACH ROW
  WHEN ((OLD.title, OLD.cover, OLD.orientation, OLD.kind, OLD.category, OLD.started_at, OLD.uid, OLD.search_host) IS DISTINCT FROM (NEW.title, NEW.cover, NEW.orientation, NEW.kind, NEW.category, NEW.started_at, NEW.uid, NEW.search_host))
  EXECUTE FUNCTION lives_card_seq();

-- The host's part of the card, and the marks staff give them: their broadcast on air, if any
-- (found through lives_one_active_idx), takes a new number.
CREATE FUNCTION lives_card_host() RETURNS trigger LANGUAGE plpgsql
  AS $$ BEGIN UPDATE lives SET card_seq = nextval('search_feed_seq') WHERE uid = coalesce(NEW.uid, OLD.uid) AND status = 'live'; RETURN NULL; END $$;
CREATE TRIGGER lives_card_host AFTER UPDATE OF nickname, face, country, short_id ON users FOR EACH ROW
  WHEN ((OLD.nickname, OLD.face, OLD.country, OLD.short_id) IS DISTINCT FROM (NEW.nickname, NEW.face, NEW.country, NEW.short_id))
  EXECUTE FUNCTION lives_card_host();
CREATE TRIGGER lives_card_marks AFTER INSERT OR UPDATE OR DELETE ON host_marks FOR EACH ROW
  EXECUTE FUNCTION lives_card_host();
