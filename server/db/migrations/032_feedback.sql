-- Feedback and suggestions (issue 23 item 4): what people tell us from the form, kept for the
-- staff inbox with where it came from. A visitor may send one (uid null); the screenshot is kept
-- here, not with the public uploads: it may show someone's messages or wallet.
CREATE TABLE feedback (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uid          bigint REFERENCES users (uid) ON DELETE SET NULL,
  category     text NOT NULL CHECK (category IN ('bug', 'idea', 'live', 'payment', 'account', 'other')),
  -- 1,000 characters as people count them (graphemes, checked by the service; an emoji can be ten
  -- code points); a backstop here.
  text         text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 16000),
  contact      text NOT NULL DEFAULT '' CHECK (char_length(contact) <= 1600),
  page         text NOT NULL CHECK (char_length(page) <= 512),
  locale       text NOT NULL,
  app_version  text NOT NULL DEFAULT '',
  browser      text NOT NULL DEFAULT '' CHECK (char_length(browser) <= 300),
  -- A WebP of at most 1600 px a side, made by the service (never the bytes as sent).
  screenshot   bytea CHECK (octet_length(screenshot) <= 2097152),
  status       text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'read', 'done')),
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX feedback_category_idx ON feedback (category, id DESC);
