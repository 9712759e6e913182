-- Accounts: users, sessions, one-time tokens, server keys and the development outbox.
CREATE TABLE users (
  uid              bigint GENERATED ALWAYS AS IDENTITY (START WITH 100001) PRIMARY KEY,
  short_id         text NOT NULL UNIQUE CHECK (short_id ~ '^[0-9]{6,12}$'),
  email            text UNIQUE CHECK (email = lower(email) AND length(email) <= 254),
  phone            text UNIQUE CHECK (phone ~ '^\+[0-9]{6,16}$'),
  password_hash    text,
  nickname         text NOT NULL CHECK (length(nickname) BETWEEN 1 AND 40),
  face             text,
  usign            text NOT NULL DEFAULT '' CHECK (length(usign) <= 200),
  sex              smallint NOT NULL DEFAULT 0 CHECK (sex IN (0, 1, 2)),
  birthday         date,
  addr             text NOT NULL DEFAULT '' CHECK (length(addr) <= 100),
  level            int NOT NULL DEFAULT 1 CHECK (level >= 0),
  anchor_level     int NOT NULL DEFAULT 0 CHECK (anchor_level >= 0),
  country          text NOT NULL DEFAULT 'US' CHECK (country ~ '^[A-Z]{2}$'),
  area             text NOT NULL DEFAULT 'us',
  email_verified_at timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  CHECK (email IS NOT NULL OR phone IS NOT NULL)
);

-- Opaque session tokens, stored only as SHA-256.
CREATE TABLE sessions (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  token_hash   bytea NOT NULL UNIQUE,
  uid          bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  device_id    text NOT NULL CHECK (length(device_id) BETWEEN 8 AND 64),
  keep         boolean NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  revoked_at   timestamptz
);
CREATE INDEX sessions_live_idx ON sessions (uid) WHERE revoked_at IS NULL;

-- Single-use tokens: login access tokens (exchanged for a session), activation and reset links.
CREATE TABLE one_time_tokens (
  token_hash   bytea PRIMARY KEY,
  uid          bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  purpose      text NOT NULL CHECK (purpose IN ('access', 'activate', 'reset')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  used_at      timestamptz
);
CREATE INDEX one_time_tokens_uid_idx ON one_time_tokens (uid, purpose);

-- Keys every node must share (the password-transport RSA key).
CREATE TABLE server_keys (
  name        text PRIMARY KEY,
  value       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Mail and SMS that were not sent because no provider is configured (development, tests).
CREATE TABLE outbox (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  channel     text NOT NULL CHECK (channel IN ('mail', 'sms')),
  recipient   text NOT NULL,
  subject     text NOT NULL,
  body        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
