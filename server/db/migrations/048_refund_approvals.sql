-- Staff refunds of at least REFUND_SECOND_APPROVAL_USD need two members: the first approval is
-- kept on the order (who, when) until someone else gives the second, which asks the provider.
ALTER TABLE payment_orders ADD COLUMN refund_first_by bigint REFERENCES users (uid);
ALTER TABLE payment_orders ADD COLUMN refund_first_at timestamptz;
