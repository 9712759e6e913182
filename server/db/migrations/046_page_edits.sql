-- Static pages edited in the staff console (issue 24 item 6): a language's text of a page as
-- staff saved it, shown instead of the repository's file (content/pages) until they take it back.
CREATE TABLE page_edits (
  slug        text NOT NULL CHECK (slug ~ '^[a-z0-9-]{1,80}$'),
  locale      text NOT NULL CHECK (locale IN ('en','ar','de','es','hi','id','ja','vi','zh','zh-TW')),
  title       text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
  description text NOT NULL CHECK (char_length(description) <= 300),
  body_md     text NOT NULL CHECK (char_length(body_md) <= 100000),
  edited_by   bigint REFERENCES users (uid) ON DELETE SET NULL,
  edited_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (slug, locale)
);
