import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { iceServers, turnConfig } from './turn';

describe('TURN credentials (the REST scheme coturn checks with use-auth-secret)', () => {
  const turn = turnConfig({
    MEDIA_TURN_URLS: 'turn:turn.example.com:3478?transport=udp, turns:turn.example.com:5349, stun:nope',
    MEDIA_TURN_SECRET: 'a shared secret of some length',
    MEDIA_TURN_TTL_SECONDS: 600,
  });

  it('keeps the turn: and turns: URLs, and needs the secret', () => {
    expect(turn?.urls).toEqual(['turn:turn.example.com:3478?transport=udp', 'turns:turn.example.com:5349']);
    expect(turnConfig({ MEDIA_TURN_URLS: 'turn:x:3478', MEDIA_TURN_TTL_SECONDS: 600 })).toBeNull();
    expect(turnConfig({ MEDIA_TURN_SECRET: 'x'.repeat(20), MEDIA_TURN_TTL_SECONDS: 600 })).toBeNull();
  });

  it('names the expiry in the user name and signs it with HMAC-SHA1 of the secret', () => {
    const now = Date.UTC(2026, 10, 28, 12, 0, 0);
    const answer = iceServers(turn, 'u42', now);
    const expiry = now / 1000 + 600;
    expect(answer.expires).toBe(new Date(expiry * 1000).toISOString());
    const [server] = answer.ice_servers;
    expect(server?.username).toBe(`${expiry}:u42`);
    expect(server?.credential).toBe(
      createHmac('sha1', 'a shared secret of some length').update(`${expiry}:u42`).digest('base64'),
    );
  });

  it('gives no servers without TURN', () => {
    expect(iceServers(null, 'visitor').ice_servers).toEqual([]);
  });
});
