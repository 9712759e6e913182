-- Recharge, conversion and cash-out (issue 6): payment orders and the providers' webhook events,
-- payee accounts and withdrawals, staff, and the NFT wallet's collectibles.

-- A recharge: one coin package bought through one payment provider. Coins are credited by the
-- ledger transaction `recharge:<id>` (once, whatever the provider sends, however often).
CREATE TABLE payment_orders (
  id            text PRIMARY KEY CHECK (id ~ '^po_[A-Za-z0-9]{20,40}$'),
  uid           bigint NOT NULL REFERENCES users (uid) ON DELETE RESTRICT,
  -- The browser's key for "buy this package once": a double-click opens one checkout.
  client_key    text NOT NULL CHECK (length(client_key) BETWEEN 8 AND 64),
  package_id    text NOT NULL,
  coins         int NOT NULL CHECK (coins > 0),
  amount_cents  int NOT NULL CHECK (amount_cents > 0),
  currency      text NOT NULL DEFAULT 'usd' CHECK (currency ~ '^[a-z]{3}$'),
  provider      text NOT NULL CHECK (provider IN ('sandbox', 'stripe')),
  -- The provider's checkout (Stripe: the Checkout Session id).
  provider_ref  text,
  -- Where the buyer pays (a retried "buy" sends them back to the same checkout).
  checkout_url  text,
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'paid', 'declined', 'expired')),
  ledger_tx_id  bigint UNIQUE REFERENCES ledger_transactions (id),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  paid_at       timestamptz,
  UNIQUE (uid, client_key),
  UNIQUE (provider, provider_ref),
  -- Paid exactly when the coins were credited.
  CHECK ((status = 'paid') = (ledger_tx_id IS NOT NULL))
);
CREATE INDEX payment_orders_uid_idx ON payment_orders (uid, created_at DESC);

-- Every webhook event a provider delivered, once: a duplicate delivery finds its row.
CREATE TABLE payment_events (
  provider     text NOT NULL,
  event_id     text NOT NULL CHECK (length(event_id) BETWEEN 1 AND 255),
  order_id     text REFERENCES payment_orders (id),
  type         text NOT NULL,
  received_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, event_id)
);

-- Where a host's cash-outs are paid (spec §5: must be valid; §6: approved by staff first). The
-- phone was proved by an SMS code when the account was connected.
CREATE TABLE payees (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uid          bigint NOT NULL REFERENCES users (uid) ON DELETE RESTRICT,
  method       text NOT NULL CHECK (method IN ('paypal')),
  account      text NOT NULL CHECK (length(account) BETWEEN 3 AND 254),
  phone        text NOT NULL CHECK (phone ~ '^\+[0-9]{6,16}$'),
  status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'replaced')),
  reviewed_by  bigint REFERENCES users (uid) ON DELETE SET NULL,
  reviewed_at  timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
-- One current payee account per user (a new one replaces the old).
CREATE UNIQUE INDEX payees_current_idx ON payees (uid) WHERE status IN ('pending', 'approved');
CREATE INDEX payees_review_idx ON payees (created_at) WHERE status = 'pending';

-- A cash-out request (spec §3 withdrawal, §4 states). Its diamonds are held by the ledger
-- transaction `hold_tx_id` at once, and either paid out or returned by `settle_tx_id`.
CREATE TABLE withdrawals (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uid           bigint NOT NULL REFERENCES users (uid) ON DELETE RESTRICT,
  client_key    text NOT NULL CHECK (length(client_key) BETWEEN 8 AND 64),
  payee_id      bigint NOT NULL REFERENCES payees (id),
  diamonds      bigint NOT NULL CHECK (diamonds > 0),
  usd_cents     bigint NOT NULL CHECK (usd_cents > 0),
  -- The Monday starting its cash-out week (spec §9: weeks in UTC-7): the weekly cap's bucket.
  week_start    date NOT NULL,
  status        text NOT NULL DEFAULT 'waiting_review'
                  CHECK (status IN ('waiting_review', 'approved', 'rejected', 'successful', 'failed')),
  hold_tx_id    bigint NOT NULL UNIQUE REFERENCES ledger_transactions (id),
  settle_tx_id  bigint UNIQUE REFERENCES ledger_transactions (id),
  reviewed_by   bigint REFERENCES users (uid) ON DELETE SET NULL,
  reviewed_at   timestamptz,
  settled_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (uid, client_key),
  -- Final exactly when the held diamonds were paid out or returned.
  CHECK ((status IN ('rejected', 'successful', 'failed')) = (settle_tx_id IS NOT NULL))
);
CREATE INDEX withdrawals_uid_idx ON withdrawals (uid, week_start DESC);
CREATE INDEX withdrawals_review_idx ON withdrawals (created_at) WHERE status IN ('waiting_review', 'approved');

-- Staff (the protected review pages; the full console comes later).
ALTER TABLE users ADD COLUMN staff boolean NOT NULL DEFAULT false;

-- The NFT wallet: collectibles a user owns (docs/money.md). No blockchain: a numbered edition
-- of a design, awarded by the product (first recharge, first conversion, first cash-out).
CREATE TABLE collectibles (
  id          text PRIMARY KEY CHECK (id ~ '^[a-z_]{3,32}$'),
  image_url   text NOT NULL,
  -- How many were awarded: the next one's serial number (the row lock orders awards).
  awarded     int NOT NULL DEFAULT 0 CHECK (awarded >= 0),
  sort        int NOT NULL DEFAULT 0
);
CREATE TABLE user_collectibles (
  uid            bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  collectible_id text NOT NULL REFERENCES collectibles (id),
  -- Its number in the edition (1 = the first ever awarded).
  serial         int NOT NULL CHECK (serial > 0),
  awarded_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (uid, collectible_id),
  UNIQUE (collectible_id, serial)
);
INSERT INTO collectibles (id, image_url, sort) VALUES
  ('first_light', '/collectibles/first_light.webp', 1),
  ('star_maker', '/collectibles/star_maker.webp', 2),
  ('first_cashout', '/collectibles/first_cashout.webp', 3);

-- The sticker set (spec §7 giftV2H5/giftStickers): free images a viewer posts in the chat, from
-- the gift catalogue's art. Drawn by scripts/gifts/make-stickers.ts.
CREATE TABLE gift_stickers (
  sticker_id  int PRIMARY KEY,
  name        text NOT NULL,
  image_url   text NOT NULL,
  sort        int NOT NULL DEFAULT 0,
  active      boolean NOT NULL DEFAULT true
);
INSERT INTO gift_stickers (sticker_id, name, image_url, sort) VALUES
  (1, 'Hello', '/stickers/1.webp', 1),
  (2, 'Love', '/stickers/2.webp', 2),
  (3, 'Haha', '/stickers/3.webp', 3),
  (4, 'Wow', '/stickers/4.webp', 4),
  (5, 'Clap', '/stickers/5.webp', 5),
  (6, 'Fire', '/stickers/6.webp', 6),
  (7, 'Cool', '/stickers/7.webp', 7),
  (8, 'GG', '/stickers/8.webp', 8);

-- Gifts' top-fans contributions not yet added to fan_contributions, as ledger_pending is for
-- balances: a gift batch appends one row per gift (no index, no foreign key, no upsert on the
-- hot path), and a roll-up every second adds them to fan_contributions. Readers use fan_totals.
CREATE TABLE fan_pending (
  vid       text NOT NULL,
  fan_uid   bigint NOT NULL,
  host_uid  bigint NOT NULL,
  coins     bigint NOT NULL CHECK (coins > 0),
  at        timestamptz NOT NULL DEFAULT now()
);

-- What each fan gave in each broadcast, rolled up or still pending.
CREATE VIEW fan_totals AS
  SELECT vid, fan_uid, host_uid, sum(coins)::bigint AS coins, max(updated_at) AS updated_at
  FROM (
    SELECT vid, fan_uid, host_uid, coins, updated_at FROM fan_contributions
    UNION ALL
    SELECT vid, fan_uid, host_uid, coins, at FROM fan_pending
  ) c
  GROUP BY vid, fan_uid, host_uid;
