-- Broadcast liveness (issue 16): a broadcast is live only while the node that holds its media
-- renews its lease here (every few seconds); any node ends broadcasts whose lease lapsed, so a
-- node that dies (kill -9, a lost machine) cannot leave them live and taking gifts. Broadcasts
-- active before this migration have no lease: they lapse now and the first sweep ends them.
ALTER TABLE lives
  ADD COLUMN lease_node text,
  ADD COLUMN lease_until timestamptz NOT NULL DEFAULT now(),
  -- Why it ended: the broadcaster ended it, another tab (or OBS) took over, its publisher was
  -- gone past the reconnect grace, or its lease lapsed (its node died or stalled).
  ADD COLUMN end_reason text CHECK (end_reason IN ('host', 'taken_over', 'lost', 'lapsed'));
CREATE INDEX lives_lease_idx ON lives (lease_until) WHERE status IN ('created', 'live');
