import type { Db } from '../../db/client';

/**
 * Demo broadcasters for a fresh install (SEED_DEMO). They have no password, so nobody can sign
 * in as them; their personal pages show what a profile looks like.
 */
const DEMO_USERS = [
  {
    shortId: '10000001',
    email: 'luna.demo@beamly.example',
    nickname: 'LunaSings',
    usign: 'Acoustic covers every evening. Requests welcome in chat!',
    sex: 2,
    birthday: '1998-07-24',
    addr: 'Lisbon',
    country: 'PT',
    level: 12,
    anchor: 5,
  },
  {
    shortId: '10000002',
    email: 'kai.demo@beamly.example',
    nickname: 'KaiCooks',
    usign: 'Street food from my tiny kitchen. Ask me anything about noodles.',
    sex: 1,
    birthday: '1994-02-11',
    addr: 'Osaka',
    country: 'JP',
    level: 8,
    anchor: 3,
  },
  {
    shortId: '10000003',
    email: 'amira.demo@beamly.example',
    nickname: 'AmiraDraws',
    usign: 'Live sketching and digital painting. Calm vibes only.',
    sex: 2,
    birthday: '2001-11-03',
    addr: 'Amman',
    country: 'JO',
    level: 15,
    anchor: 6,
  },
] as const;

export const DEMO_SHORT_IDS = DEMO_USERS.map((u) => u.shortId);

/** Inserts the demo users that are missing; returns how many were added. */
export async function seedDemoUsers(db: Db): Promise<number> {
  let added = 0;
  for (const u of DEMO_USERS) {
    const rows = await db.query(
      `INSERT INTO users (short_id, email, nickname, usign, sex, birthday, addr, country, level, anchor_level, email_verified_at)
       VALUES ($1, $2, $3, $4, $5, $6::date, $7, $8, $9, $10, now()) ON CONFLICT DO NOTHING RETURNING uid`,
      [u.shortId, u.email, u.nickname, u.usign, u.sex, u.birthday, u.addr, u.country, u.level, u.anchor],
    );
    added += rows.length;
  }
  return added;
}
