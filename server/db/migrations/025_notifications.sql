-- Go-live notifications (issue 19 item 6): the in-site bell's rows, per-host mutes, each person's
-- settings, the fan-out jobs that write a host's followers' rows in batches, and Web Push:
-- devices' subscriptions and the queue of pushes every node's worker sends (docs/decisions.md,
-- "Notifications").

-- The fan-out walks a host's followers in follower order, 10,000 at a time (keyset pages): the
-- existing (followee, created_at) index cannot page through a million rows made at one instant.
CREATE INDEX follows_followee_follower_idx ON follows (followee, follower);

CREATE TABLE notifications (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uid         bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  host        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  vid         text NOT NULL,
  title       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  read_at     timestamptz
);
-- The bell's list (newest first), its unread count, and the hour rule (one per host per hour).
CREATE INDEX notifications_uid_idx ON notifications (uid, id DESC);
CREATE INDEX notifications_unread_idx ON notifications (uid) WHERE read_at IS NULL;
CREATE INDEX notifications_host_idx ON notifications (uid, host, created_at DESC);

-- Hosts whose going live this person is not told of.
CREATE TABLE notification_mutes (
  uid         bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  host        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (uid, host)
);

-- Only people who changed a setting have a row: no row is both on.
CREATE TABLE notification_settings (
  uid         bigint PRIMARY KEY REFERENCES users (uid) ON DELETE CASCADE,
  go_live     boolean NOT NULL DEFAULT true,
  push        boolean NOT NULL DEFAULT true
);

-- A host went on air: its followers are to be notified. Any node's worker claims a job (FOR
-- UPDATE SKIP LOCKED, then a claim that lapses if that node dies) and moves `after` (the last
-- follower done) forward batch by batch, so a fan-out cut short carries on where it stopped.
CREATE TABLE notify_jobs (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  host           bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  vid            text NOT NULL,
  title          text NOT NULL,
  after          bigint NOT NULL DEFAULT 0,
  claimed_until  timestamptz NOT NULL DEFAULT '-infinity',
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notify_jobs_host_idx ON notify_jobs (host, id);

-- A device's Web Push subscription (one per browser profile); the endpoint is the push service's.
CREATE TABLE push_subscriptions (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uid         bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  endpoint    text NOT NULL UNIQUE,
  p256dh      text NOT NULL,
  auth        text NOT NULL,
  -- The language its pushes are written in (the page's when it subscribed).
  locale      text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX push_subscriptions_uid_idx ON push_subscriptions (uid, id);

-- Pushes to send, one per notification and device, written by the fan-out and never sent inline:
-- each node's worker takes due rows (FOR UPDATE SKIP LOCKED), claims them by moving `not_before`
-- on, sends, and deletes them; a row whose node died is due again when its claim lapses.
CREATE TABLE push_queue (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  notification  bigint NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
  subscription  bigint NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
  attempts      int NOT NULL DEFAULT 0,
  not_before    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX push_queue_due_idx ON push_queue (not_before, id);
CREATE INDEX push_queue_notification_idx ON push_queue (notification);
CREATE INDEX push_queue_subscription_idx ON push_queue (subscription);
