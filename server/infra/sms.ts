import type { Db } from '../db/client';

/** Sends text messages through a provider, or keeps them in the outbox when none is configured. */
export interface SmsSender {
  send(to: string, text: string): Promise<void>;
  readonly kind: 'http' | 'outbox';
}

/**
 * SMS_URL picks the provider. `twilio://ACCOUNT_SID:AUTH_TOKEN@+15550001111` posts to Twilio's
 * Messages API (the number after @ is the sender); `twilio+http://SID:TOKEN@+1555…/host:port`
 * points the same adapter at another base URL (a Twilio-compatible gateway, or a test server).
 * Unset: the outbox table, shown at /dev/outbox in development.
 */
export function createSms(opts: { smsUrl: string | undefined; db: Db }): SmsSender {
  if (!opts.smsUrl) {
    return {
      kind: 'outbox',
      async send(to, text) {
        await opts.db.query(
          "INSERT INTO outbox (channel, recipient, subject, body) VALUES ('sms', $1, 'SMS', $2)",
          [to, text],
        );
      },
    };
  }
  const target = parseSmsUrl(opts.smsUrl);
  return {
    kind: 'http',
    async send(to, text) {
      const res = await fetch(
        `${target.base}/2010-04-01/Accounts/${encodeURIComponent(target.sid)}/Messages.json`,
        {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${target.sid}:${target.token}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({ To: to, From: target.from, Body: text }).toString(),
          signal: AbortSignal.timeout(10_000),
        },
      );
      // The provider's answer is read to free the connection; only its status matters here.
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`SMS provider answered ${res.status}`);
    },
  };
}

export function parseSmsUrl(raw: string): { base: string; sid: string; token: string; from: string } {
  const m = /^twilio(\+https?)?:\/\/([^:]+):([^@]+)@(\+[0-9]{6,16})(?:\/(.+))?$/.exec(raw);
  if (!m) throw new Error('SMS_URL must look like twilio://ACCOUNT_SID:AUTH_TOKEN@+15550001111');
  const [, scheme, sid, token, from, host] = m;
  const base = scheme && host ? `${scheme.slice(1)}://${host}` : 'https://api.twilio.com';
  return {
    base,
    sid: decodeURIComponent(sid ?? ''),
    token: decodeURIComponent(token ?? ''),
    from: from ?? '',
  };
}
