-- Every page a signed-in person opens asks whether a warning waits for them (the warning dialog):
-- answered from this index, not by reading their sanctions.
CREATE INDEX sanctions_unseen_warning_idx ON sanctions (uid) WHERE kind = 'warn' AND seen_at IS NULL;
