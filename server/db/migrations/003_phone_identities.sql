-- Phone sign-up and recovery, and sign-in with third-party identity providers (Google).
ALTER TABLE one_time_tokens DROP CONSTRAINT one_time_tokens_purpose_check;
ALTER TABLE one_time_tokens ADD CONSTRAINT one_time_tokens_purpose_check
  CHECK (purpose IN ('access', 'activate', 'reset', 'phone_reset'));

-- One row per account at a provider (spec §3 third-party codes: google 102). The subject is the
-- provider's stable id for the person; the e-mail is what the provider vouched for at sign-in.
CREATE TABLE user_identities (
  provider    smallint NOT NULL CHECK (provider IN (101, 102, 103, 105, 110, 114)),
  subject     text NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
  uid         bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  email       text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, subject)
);
CREATE INDEX user_identities_uid_idx ON user_identities (uid);
