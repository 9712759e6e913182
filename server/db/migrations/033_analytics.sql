-- First-party analytics (issue 23 item 5; docs/decisions.md, "First-party analytics").
--
-- Events the pages report (after the cookie banner's consent for analytics), one partition per
-- day: the collector appends in batches, the roll-up reads one day, and a day past retention is
-- dropped whole (no DELETE of millions of rows). Partitions are made ahead by the service.
-- `day` is the day in the site's reporting time zone (the cash-out week's), as the roll-ups are.
-- Identifiers are kept only as keyed hashes (HMAC-SHA-256 with the site's ANALYTICS_KEY):
-- `visitor` of the browser's random id, `account` of the e-mail address or phone typed.
CREATE TABLE analytics_events (
  day      date NOT NULL,
  at       timestamptz NOT NULL,
  et       text NOT NULL CHECK (et IN ('page_view', 'register_click', 'login_failed')),
  visitor  text NOT NULL,
  locale   text NOT NULL,
  path     text NOT NULL CHECK (char_length(path) <= 512),
  way      text CHECK (way IN ('email', 'phone', 'google')),
  account  text
) PARTITION BY RANGE (day);

-- The daily roll-ups the staff console charts: one number per day, metric and dimension (the
-- way for sign-ups, register clicks and login failures; '' for totals). Made again for today and
-- yesterday every few minutes; earlier days are final.
CREATE TABLE analytics_daily (
  day     date NOT NULL,
  metric  text NOT NULL,
  dim     text NOT NULL DEFAULT '',
  value   bigint NOT NULL,
  PRIMARY KEY (day, metric, dim)
);

-- The roll-up counts a day of sign-ups, broadcasts, gifts and checkouts from their own tables,
-- which had no index by time. These tables only grow at the end, where BRIN indexes (a few
-- pages each, next to free to keep up) find a day's rows.
CREATE INDEX users_created_brin ON users USING brin (created_at);
CREATE INDEX lives_started_brin ON lives USING brin (started_at);
CREATE INDEX ledger_transactions_created_brin ON ledger_transactions USING brin (created_at);
CREATE INDEX payment_orders_created_brin ON payment_orders USING brin (created_at);
