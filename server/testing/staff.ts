import { generate } from 'otplib';
import type { StaffRole } from '../../common/staff';
import { Totp } from '../modules/staff';
import type { TestApp } from './app';

type Who = { uid: number; headers: Record<string, string> };

/** Makes `who` a member of staff with `role` and signs their session in with a second factor. */
export async function asStaff(t: TestApp, who: Who, role: StaffRole = 'admin'): Promise<void> {
  await t.testDb.db.query(
    `INSERT INTO staff_members (uid, role) VALUES ($1, $2)
     ON CONFLICT (uid) DO UPDATE SET role = excluded.role`,
    [who.uid, role],
  );
  await staffSignIn(t, who);
}

/**
 * Gives the session of `who`, a member of staff (by the table, STAFF_EMAILS or an invitation),
 * its second factor as the console does: enrols an authenticator the first time (the secret the
 * setup answers), then sends a code made from it.
 */
export async function staffSignIn(t: TestApp, who: Who): Promise<void> {
  const me = await t.app.inject({ url: '/api/v1/staff/me', headers: who.headers });
  if (me.statusCode !== 200) throw new Error(`not staff: ${me.body}`);
  const [row] = await t.testDb.db.query<{ totp_secret: string | null }>(
    'SELECT totp_secret FROM staff_members WHERE uid = $1',
    [who.uid],
  );
  let secret: string;
  if (row?.totp_secret) {
    const key = t.config.STAFF_TOTP_KEY;
    if (!key) throw new Error('the test app has no STAFF_TOTP_KEY');
    secret = new Totp(key, '').open(row.totp_secret);
  } else {
    const setup = await t.app.inject({
      method: 'POST',
      url: '/api/v1/staff/mfa/setup',
      headers: who.headers,
    });
    if (setup.statusCode !== 200) throw new Error(`staff setup failed: ${setup.body}`);
    secret = setup.json<{ data: { secret: string } }>().data.secret;
  }
  // A code works once: a test may sign the same member in twice within one 30 s step.
  await t.testDb.db.query('UPDATE staff_members SET totp_step = 0 WHERE uid = $1', [who.uid]);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/staff/mfa/verify',
    headers: who.headers,
    payload: { code: await generate({ secret }) },
  });
  if (res.statusCode !== 200) throw new Error(`staff sign-in failed: ${res.body}`);
}
