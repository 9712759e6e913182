-- PK battles (issue 21, spec §4 "Pk battle rounds: await, start, punish (dare), end; first gift in
-- a round gives host double points"): two live hosts head to head, scored by the gifts their rooms
-- send during the start phase. docs/decisions.md, "PK battles", explains the rules kept here.

-- Whether a host takes invitations (on unless they turn it off).
CREATE TABLE pk_settings (
  uid      bigint PRIMARY KEY REFERENCES users (uid) ON DELETE CASCADE,
  accepts  boolean NOT NULL DEFAULT true
);

-- A battle from the invitation on. Side a invited side b. `phase_until` is when the phase ends
-- (every node's tick moves due battles on, so a restart or a dead node loses no timer); `version`
-- grows with every change the rooms are told of, so a stale announcement is dropped.
CREATE TABLE battles (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  a_uid           bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  a_vid           text NOT NULL REFERENCES lives (vid) ON DELETE CASCADE,
  b_uid           bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  b_vid           text NOT NULL REFERENCES lives (vid) ON DELETE CASCADE,
  phase           text NOT NULL
                  CHECK (phase IN ('invited', 'declined', 'expired', 'cancelled', 'await', 'start', 'punish', 'end')),
  round_seconds   int NOT NULL CHECK (round_seconds BETWEEN 60 AND 600),
  punish_seconds  int NOT NULL CHECK (punish_seconds BETWEEN 10 AND 300),
  phase_until     timestamptz,
  a_score         bigint NOT NULL DEFAULT 0 CHECK (a_score >= 0),
  b_score         bigint NOT NULL DEFAULT 0 CHECK (b_score >= 0),
  -- The ledger transaction of each side's first gift of the round (the one that counted double).
  a_first         bigint REFERENCES ledger_transactions (id),
  b_first         bigint REFERENCES ledger_transactions (id),
  winner          text CHECK (winner IN ('a', 'b', 'draw')),
  -- Why it ended: the scores, a host who ended their live, or one whose media did not come back.
  reason          text CHECK (reason IN ('score', 'forfeit', 'dropped')),
  dare            text CHECK (length(dare) BETWEEN 1 AND 80),
  rematch_of      bigint REFERENCES battles (id) ON DELETE SET NULL,
  version         bigint NOT NULL DEFAULT 1,
  created_at      timestamptz NOT NULL DEFAULT now(),
  started_at      timestamptz,
  ended_at        timestamptz,
  CHECK (a_uid <> b_uid),
  CHECK (phase NOT IN ('punish', 'end') OR winner IS NOT NULL)
);
CREATE INDEX battles_due_idx ON battles (phase_until) WHERE phase IN ('invited', 'await', 'start', 'punish');
CREATE INDEX battles_a_idx ON battles (a_uid, ended_at DESC) WHERE phase = 'end';
CREATE INDEX battles_b_idx ON battles (b_uid, ended_at DESC) WHERE phase = 'end';
CREATE INDEX battles_ended_idx ON battles (ended_at) WHERE phase = 'end';

-- At most one open battle (invited to the end) per host: both rows go in with the invitation.
CREATE TABLE pk_busy (
  uid        bigint PRIMARY KEY REFERENCES users (uid) ON DELETE CASCADE,
  battle_id  bigint NOT NULL REFERENCES battles (id) ON DELETE CASCADE
);

-- The broadcasts whose gifts score now: a row per side exactly during the start phase. The gift
-- batch statement (server/modules/ledger/repo.ts) joins it in its own snapshot, so whether a gift
-- scored is decided with the gift, in its transaction.
CREATE TABLE pk_scoring (
  vid        text PRIMARY KEY,
  battle_id  bigint NOT NULL REFERENCES battles (id) ON DELETE CASCADE,
  side       text NOT NULL CHECK (side IN ('a', 'b'))
);

-- Scoring gifts not yet counted, as fan_pending is for top fans: appended by the gift batch in
-- the gift's transaction (no index on the hot path beyond the battle's), moved to pk_points by
-- the battle's roll-up in the statement that counts them.
CREATE TABLE pk_pending (
  battle_id  bigint NOT NULL,
  side       text NOT NULL,
  tx_id      bigint NOT NULL,
  sender     bigint NOT NULL,
  coins      bigint NOT NULL,
  at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pk_pending_battle_idx ON pk_pending (battle_id);

-- Every gift that scored, once (its ledger transaction is the key): a battle's score is the sum
-- of its side's points, which the audit compares with the ledger.
CREATE TABLE pk_points (
  tx_id      bigint PRIMARY KEY REFERENCES ledger_transactions (id),
  battle_id  bigint NOT NULL REFERENCES battles (id) ON DELETE CASCADE,
  side       text NOT NULL CHECK (side IN ('a', 'b')),
  sender     bigint NOT NULL,
  coins      bigint NOT NULL CHECK (coins > 0),
  points     bigint NOT NULL,
  CHECK (points = coins OR points = 2 * coins)
);
CREATE INDEX pk_points_battle_idx ON pk_points (battle_id, side, sender);
