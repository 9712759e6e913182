-- The staff console (issue 24): members and their roles, their second factor, their signed-in
-- sessions, invitations by e-mail, and the audit log of everything staff do.

-- A member of staff and their role (common/staff.ts has what each role may do). The TOTP secret
-- is kept encrypted (AES-256-GCM under STAFF_TOTP_KEY): whoever reads the database alone cannot
-- make codes. `totp_pending` is one offered and not yet confirmed with a code; `totp_step` the
-- last time step a code was accepted for (each code works once).
CREATE TABLE staff_members (
  uid           bigint PRIMARY KEY REFERENCES users (uid) ON DELETE CASCADE,
  role          text NOT NULL CHECK (role IN ('admin', 'moderator', 'finance', 'content')),
  totp_secret   text,
  totp_pending  text,
  totp_step     bigint NOT NULL DEFAULT 0,
  added_by      bigint REFERENCES users (uid) ON DELETE SET NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- Staff who were flagged before roles existed are admins.
INSERT INTO staff_members (uid, role) SELECT uid, 'admin' FROM users WHERE staff;
ALTER TABLE users DROP COLUMN staff;

-- An invitation to an address with no account yet: it becomes a member when that address signs
-- up (or next asks as staff).
CREATE TABLE staff_invitations (
  email       text PRIMARY KEY,
  role        text NOT NULL CHECK (role IN ('admin', 'moderator', 'finance', 'content')),
  invited_by  bigint REFERENCES users (uid) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- A session whose member gave their second factor, until `expires_at` (8 hours on).
CREATE TABLE staff_sessions (
  session_id  bigint PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
  uid         bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX staff_sessions_uid_idx ON staff_sessions (uid);

-- Every staff action: who, when, what, on what, before and after, and their note. Append-only:
-- no UPDATE, DELETE or TRUNCATE, for anyone (a trigger refuses them to the table's owner too),
-- and none granted.
CREATE TABLE staff_audit (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  actor       bigint NOT NULL,
  actor_name  text NOT NULL,
  actor_role  text NOT NULL,
  action      text NOT NULL,
  target      text,
  before      jsonb,
  after       jsonb,
  note        text
);
CREATE INDEX staff_audit_at_idx ON staff_audit (id DESC);
CREATE INDEX staff_audit_actor_idx ON staff_audit (actor, id DESC);
CREATE INDEX staff_audit_action_idx ON staff_audit (action, id DESC);
CREATE INDEX staff_audit_target_idx ON staff_audit (target, id DESC);

-- (One line: migrations are split into statements at a semicolon that ends a line.)
CREATE FUNCTION staff_audit_append_only() RETURNS trigger LANGUAGE plpgsql
  AS $$ BEGIN RAISE EXCEPTION 'staff_audit is append-only'; END $$;
CREATE TRIGGER staff_audit_no_change BEFORE UPDATE OR DELETE ON staff_audit
  FOR EACH ROW EXECUTE FUNCTION staff_audit_append_only();
CREATE TRIGGER staff_audit_no_truncate BEFORE TRUNCATE ON staff_audit
  FOR EACH STATEMENT EXECUTE FUNCTION staff_audit_append_only();
REVOKE UPDATE, DELETE, TRUNCATE ON staff_audit FROM PUBLIC;
