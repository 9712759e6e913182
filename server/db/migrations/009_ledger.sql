-- The ledger (issue 6): double-entry bookkeeping of coins and diamonds.
--
-- Every movement is one ledger transaction (with the caller's idempotency key) made of postings;
-- a posting moves an amount from one account to another of the same currency, so every
-- transaction sums to zero by construction (each posting is a debit and a credit). Balances are
-- kept on the accounts (plus credits pending, below), and users' balances can never go negative
-- (CHECK). System accounts (where coins come from and go to) may.

CREATE TABLE ledger_accounts (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner_uid    bigint REFERENCES users (uid) ON DELETE RESTRICT,
  -- System accounts: 'payments' (coins bought), 'promotions' (coins given), 'gift_spend' (coins
  -- spent on gifts), 'gift_mint' (diamonds earned from gifts), 'conversion', 'payouts'.
  system_name  text CHECK (system_name ~ '^[a-z_]{3,32}$'),
  currency     text NOT NULL CHECK (currency IN ('coin', 'diamond')),
  balance      bigint NOT NULL DEFAULT 0,
  CHECK ((owner_uid IS NULL) <> (system_name IS NULL)),
  CHECK (system_name IS NOT NULL OR balance >= 0),
  UNIQUE (owner_uid, currency),
  UNIQUE (system_name, currency),
  -- Postings name (account, currency): an account only ever moves its own currency.
  UNIQUE (id, currency)
);

CREATE TABLE ledger_transactions (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind             text NOT NULL CHECK (kind IN ('grant', 'recharge', 'gift', 'convert', 'cashout_hold',
                     'cashout_release', 'payout')),
  -- One movement per request: a retried request finds its transaction instead of making another.
  idempotency_key  text NOT NULL UNIQUE CHECK (length(idempotency_key) BETWEEN 8 AND 120),
  actor_uid        bigint REFERENCES users (uid) ON DELETE SET NULL,
  meta             jsonb NOT NULL DEFAULT '{}',
  created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ledger_postings (
  tx_id         bigint NOT NULL REFERENCES ledger_transactions (id),
  -- The posting's place in its transaction (1, 2, …).
  leg           smallint NOT NULL CHECK (leg > 0),
  currency      text NOT NULL,
  from_account  bigint NOT NULL,
  to_account    bigint NOT NULL,
  amount        bigint NOT NULL CHECK (amount > 0),
  -- The user's side of the posting (every posting has exactly one: users never pay each other
  -- directly; coins and diamonds come from and go to system accounts): a user's history.
  owner_account bigint NOT NULL CHECK (owner_account IN (from_account, to_account)),
  FOREIGN KEY (from_account, currency) REFERENCES ledger_accounts (id, currency),
  FOREIGN KEY (to_account, currency) REFERENCES ledger_accounts (id, currency),
  CHECK (from_account <> to_account),
  PRIMARY KEY (tx_id, leg)
);
CREATE INDEX ledger_postings_owner_idx ON ledger_postings (owner_account, tx_id DESC);

-- Credits not yet added to their account's balance. Gifts to a popular host would otherwise all
-- wait for the one row of the host's balance (and of the system accounts): instead each batch
-- of gifts appends what it adds here, and a roll-up moves these into the balances now and then
-- (and before anything is taken from such an account). An account's balance is its `balance`
-- plus its pending rows.
CREATE TABLE ledger_pending (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id   bigint NOT NULL REFERENCES ledger_accounts (id),
  amount       bigint NOT NULL CHECK (amount <> 0)
);
CREATE INDEX ledger_pending_account_idx ON ledger_pending (account_id);

-- The gift catalogue (spec §3 gift: gift_id, mobile_web_url; §4: video only, lottie refused).
CREATE TABLE gifts (
  gift_id     int PRIMARY KEY,
  name        text NOT NULL,
  price       int NOT NULL CHECK (price > 0),
  format      text NOT NULL DEFAULT 'video' CHECK (format IN ('video', 'lottie')),
  media_url   text,
  icon_url    text,
  sort        int NOT NULL DEFAULT 0,
  active      boolean NOT NULL DEFAULT true
);

-- The first gifts (prices in coins); animations drawn by scripts/gifts/make-animations.ts.
INSERT INTO gifts (gift_id, name, price, format, media_url, icon_url, sort) VALUES
  (1, 'Rose', 1, 'video', '/gifts/1.mp4', '/gifts/1.webp', 1),
  (2, 'Heart', 5, 'video', '/gifts/2.mp4', '/gifts/2.webp', 2),
  (3, 'Star', 10, 'video', '/gifts/3.mp4', '/gifts/3.webp', 3),
  (4, 'Crown', 100, 'video', '/gifts/4.mp4', '/gifts/4.webp', 4),
  (5, 'Rocket', 500, 'video', '/gifts/5.mp4', '/gifts/5.webp', 5),
  -- A lottie gift: spec §4 says only video gifts play; sending it raises the spec's error.
  (90, 'Fireworks', 50, 'lottie', NULL, '/gifts/3.webp', 90);
