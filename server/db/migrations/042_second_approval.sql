-- A second approver for large cash-outs (issue 24 item 5): at or above CASHOUT_SECOND_APPROVAL_USD
-- a cash-out waits for review until two different members of staff approved it; the first
-- approval is kept here. Approved (by anyone) the state moves on as before.
ALTER TABLE withdrawals ADD COLUMN first_approved_by bigint REFERENCES users (uid) ON DELETE SET NULL;
ALTER TABLE withdrawals ADD COLUMN first_approved_at timestamptz;
-- The first approval is of a request waiting for review, or of one since decided.
ALTER TABLE withdrawals ADD CONSTRAINT withdrawals_first_approval_ck CHECK ((first_approved_by IS NULL) OR (first_approved_at IS NOT NULL));
