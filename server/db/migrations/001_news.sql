-- News: articles with one row per language; the list and article pages read these.
CREATE TABLE news (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  slug        text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9-]{1,80}$'),
  published_at timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE news_translation (
  news_id     bigint NOT NULL REFERENCES news (id) ON DELETE CASCADE,
  locale      text NOT NULL CHECK (locale IN ('en','ar','de','es','hi','id','ja','vi','zh','zh-TW')),
  title       text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  summary     text NOT NULL CHECK (length(summary) <= 400),
  description text NOT NULL CHECK (length(description) <= 300),
  body_md     text NOT NULL,
  PRIMARY KEY (news_id, locale)
);

CREATE INDEX news_published_idx ON news (published_at DESC, id DESC);
