-- Payment reversals applied from storage, a payment reported twice flagged for staff, and the
-- repair sweep's order (issue 16; docs/money.md "Refunds and chargebacks", "Recharge").

-- A refund or dispute is stored (its event row, with what it said in `detail`) before the provider
-- is answered, and applied from there: at once when it can be, or by the retry that looks for
-- stored reversals not yet applied (`pending`) every few seconds. `tries` counts the attempts that
-- failed, so one that keeps failing goes behind the others.
ALTER TABLE payment_events ADD COLUMN pending boolean NOT NULL DEFAULT false;
ALTER TABLE payment_events ADD COLUMN tries int NOT NULL DEFAULT 0 CHECK (tries >= 0);
CREATE INDEX payment_events_pending_idx ON payment_events (tries, received_at) WHERE pending;
-- Reversals kept without an order before this (their payment not known yet) wait like new ones.
UPDATE payment_events SET pending = true WHERE order_id IS NULL AND jsonb_typeof(detail -> 'reversal') = 'object';

-- Why an order is parked as 'mismatch': the provider charged another amount ('amount'), or it
-- reported for this order a payment another order was already credited for ('payment_reused';
-- `received_payment_ref` is that payment: the order holding it has it as `payment_ref`).
ALTER TABLE payment_orders ADD COLUMN mismatch_reason text
  CHECK (mismatch_reason IN ('amount', 'payment_reused'));
ALTER TABLE payment_orders ADD COLUMN received_payment_ref text;
UPDATE payment_orders SET mismatch_reason = 'amount' WHERE status = 'mismatch';

-- The repair sweep asks first about orders it never asked about (a paid order whose webhook was
-- lost is one of those), then again about checkouts still open, less and less often:
-- `repair_asks` times so far, not before `repair_after`.
ALTER TABLE payment_orders ADD COLUMN repair_asks int NOT NULL DEFAULT 0 CHECK (repair_asks >= 0);
ALTER TABLE payment_orders ADD COLUMN repair_after timestamptz;
