-- Keeping the site safe (issue 24 item 2): reports decided by staff, and what staff did to an
-- account: warnings, suspensions from going live, bans.

ALTER TABLE reports
  ADD COLUMN handled_by bigint REFERENCES users (uid) ON DELETE SET NULL,
  ADD COLUMN handled_at timestamptz,
  ADD COLUMN note text;
-- The queue groups open reports by the person and the broadcast reported.
CREATE INDEX reports_open_target_idx ON reports (target_uid, vid) WHERE status = 'open';

-- A staff action on an account. A warning is told to the person; a suspension keeps them from
-- going live until `until`; a ban refuses their sign-ins and cash-outs for good (until lifted).
CREATE TABLE sanctions (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uid         bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('warn', 'suspend', 'ban')),
  category    text CHECK (category IN ('adult', 'harassment', 'minor', 'self_harm',
                'cover_title', 'violence', 'drugs', 'copyright', 'other')),
  note        text NOT NULL CHECK (char_length(note) BETWEEN 1 AND 1000),
  by_uid      bigint REFERENCES users (uid) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  until       timestamptz,
  lifted_at   timestamptz,
  -- A warning, when its person said they read it (until then it is shown to them).
  seen_at     timestamptz,
  CHECK ((kind = 'suspend') = (until IS NOT NULL))
);
CREATE INDEX sanctions_active_idx ON sanctions (uid) WHERE lifted_at IS NULL AND kind <> 'warn';

-- A broadcast ended by staff says so.
ALTER TABLE lives DROP CONSTRAINT lives_end_reason_check;
ALTER TABLE lives ADD CONSTRAINT lives_end_reason_check
  CHECK (end_reason IN ('host', 'taken_over', 'lost', 'lapsed', 'staff'));
