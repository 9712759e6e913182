-- What the provider reported charging for an order parked as 'mismatch' (migration 012): staff
-- compare it with the order's price (amount_cents, currency) on /staff/cashout and check the
-- payment at the provider. NULL for orders parked before this was recorded, or when the provider
-- did not say.
ALTER TABLE payment_orders ADD COLUMN received_cents bigint;
ALTER TABLE payment_orders ADD COLUMN received_currency text;
