-- A report's reason is up to 100 characters as people count them (graphemes, checked by the
-- service). One such character can be several code points (a family emoji is seven), so the
-- database's bound, in code points, has to leave room for that.
ALTER TABLE reports DROP CONSTRAINT reports_reason_check;
ALTER TABLE reports ADD CONSTRAINT reports_reason_check CHECK (char_length(reason) <= 1600);
