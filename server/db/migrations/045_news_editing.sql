-- News written in the staff console (issue 24 item 6): an article staff take down stays in the
-- table, hidden (the repository's seed adds what is missing, so a deleted one would come back at
-- the next start); one dated ahead is published then. `edited_at`: when staff last saved it (the
-- seed leaves an edited article's languages as staff left them).
ALTER TABLE news
  ADD COLUMN hidden boolean NOT NULL DEFAULT false,
  ADD COLUMN edited_at timestamptz;
