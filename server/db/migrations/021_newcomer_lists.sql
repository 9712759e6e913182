-- Lists a newcomer expects (issue 16): the gifts of a broadcast for its host's studio, and whom
-- someone follows on their personal page.

-- A broadcast's gifts, newest first: the ledger's gift transactions by the broadcast in their
-- meta. Partial (gifts only) and by expression, so nothing is copied out of the ledger; a gift
-- batch pays one more index entry per gift for it.
CREATE INDEX ledger_transactions_gift_vid_idx
  ON ledger_transactions ((meta->>'vid'), id DESC) WHERE kind = 'gift';

-- Whom someone follows, newest first (followers already have follows_followee_idx).
CREATE INDEX follows_follower_idx ON follows (follower, created_at DESC);
