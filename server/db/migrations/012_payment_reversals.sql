-- Payment reversals (docs/money.md "Refunds and chargebacks"): a recharge the provider gave back
-- (a refund) or lost (a dispute, a chargeback) takes its coins back; orders staff must look at;
-- webhook events about orders this database does not know.

-- New order states. 'mismatch': the provider says it charged something other than the order's
-- price; never credited, never asked about again, left for staff. 'refunded' / 'disputed': the
-- payment was given back (or claimed back by the card holder): its coins were taken back, as far
-- as the buyer still had them (payment_reversals).
ALTER TABLE payment_orders
  DROP CONSTRAINT payment_orders_status_check,
  ADD CONSTRAINT payment_orders_status_check
    CHECK (status IN ('pending', 'paid', 'declined', 'expired', 'mismatch', 'refunded', 'disputed'));

-- Paid exactly when the coins were credited; a reversed order may have been credited or not (a
-- refund can arrive before the payment's own webhook: then nothing is credited, ever).
ALTER TABLE payment_orders
  DROP CONSTRAINT payment_orders_check,
  ADD CONSTRAINT payment_orders_credited_check
    CHECK (status IN ('refunded', 'disputed') OR (status = 'paid') = (ledger_tx_id IS NOT NULL));

-- The provider's id of the payment itself (Stripe: the PaymentIntent), stored when the checkout is
-- paid: refund and dispute events name the payment, not the checkout.
ALTER TABLE payment_orders ADD COLUMN payment_ref text;
ALTER TABLE payment_orders ADD CONSTRAINT payment_orders_payment_ref_key UNIQUE (provider, payment_ref);

-- An event about an order this database does not know (a staging site sharing the provider
-- account, or a refund that arrived before its payment's webhook) is kept with order_id NULL and
-- what it said (detail), so the foreign key holds and staff can see it; payment_ref finds such a
-- refund once its payment is known.
ALTER TABLE payment_events ADD COLUMN payment_ref text;
ALTER TABLE payment_events ADD COLUMN detail jsonb;
CREATE INDEX payment_events_unmatched_idx ON payment_events (provider, payment_ref)
  WHERE order_id IS NULL AND payment_ref IS NOT NULL;

-- What a refunded or disputed order took back (one row per order, grown by later, larger refunds).
-- `coins`: what the reversals cover so far (a dispute or a full refund: the whole order; a partial
-- refund: its share, rounded up); `taken`: what was taken back from the buyer's coins (never more
-- than they had: balances cannot go negative). The difference (coins already spent) is the
-- shortfall: while one is unsettled, the buyer cannot request a cash-out.
CREATE TABLE payment_reversals (
  order_id     text PRIMARY KEY REFERENCES payment_orders (id),
  uid          bigint NOT NULL REFERENCES users (uid) ON DELETE RESTRICT,
  reason       text NOT NULL CHECK (reason IN ('refund', 'dispute')),
  coins        int NOT NULL CHECK (coins > 0),
  taken        int NOT NULL CHECK (taken >= 0),
  shortfall    int GENERATED ALWAYS AS (coins - taken) STORED,
  -- Staff settled the shortfall (recovered it elsewhere, or wrote it off).
  settled_by   bigint REFERENCES users (uid) ON DELETE SET NULL,
  settled_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  CHECK (taken <= coins)
);
CREATE INDEX payment_reversals_unsettled_idx ON payment_reversals (uid)
  WHERE taken < coins AND settled_at IS NULL;

-- The ledger movement that takes a reversed recharge's coins back. The kinds' CHECK is rebuilt
-- from the kinds it allows now plus this one (not restated: earlier migrations may have added
-- kinds of their own). One line: migrations are split at semicolons that end a line.
DO $$ BEGIN EXECUTE (SELECT format('ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_kind_check, ADD CONSTRAINT ledger_transactions_kind_check CHECK (kind IN (%s))', string_agg(quote_literal(k), ', ' ORDER BY k)) FROM (SELECT m[1] AS k FROM pg_constraint c CROSS JOIN LATERAL regexp_matches(pg_get_constraintdef(c.oid), '''([a-z_]+)''', 'g') AS m WHERE c.conrelid = 'ledger_transactions'::regclass AND c.conname = 'ledger_transactions_kind_check' UNION SELECT 'recharge_reversal') kinds); END $$;
