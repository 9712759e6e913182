-- Guards for what the ledger's code assumes (review of 009): the schema refuses it too.

-- Pending rows (009) are what gift batches add to accounts without updating their rows: a host's
-- diamonds, gift_spend's coins, and the diamonds gift_mint gives (negative: a system account,
-- which may go below zero). On a user's account a pending row is always a credit: a negative one
-- would be a debit no balance check saw, taking the user below zero behind the CHECK on
-- ledger_accounts.balance. Each row says whether its account is a user's, a foreign key holds that
-- to the account itself, and a CHECK refuses anything but credits there.
ALTER TABLE ledger_accounts ADD COLUMN is_user boolean GENERATED ALWAYS AS (owner_uid IS NOT NULL) STORED;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_id_is_user_key UNIQUE (id, is_user);
ALTER TABLE ledger_pending ADD COLUMN user_account boolean;
UPDATE ledger_pending p SET user_account = a.is_user FROM ledger_accounts a WHERE a.id = p.account_id;
-- A negative pending row already on a user's account fails the CHECK here, on purpose: it is a
-- lost debit to look into, not something to carry on with.
ALTER TABLE ledger_pending
  ALTER COLUMN user_account SET NOT NULL,
  ADD CONSTRAINT ledger_pending_account_kind_fkey
    FOREIGN KEY (account_id, user_account) REFERENCES ledger_accounts (id, is_user),
  ADD CONSTRAINT ledger_pending_user_credit CHECK (amount > 0 OR NOT user_account);
