import type { FastifyInstance } from 'fastify';
import type { FakeEngine } from './fake-engine';

/**
 * A broadcast created through the API (POST /api/v1/live), not yet published: its vid and its
 * publish token, for a test that publishes itself (a page's camera, a test peer).
 */
export async function startLive(
  app: FastifyInstance,
  headers: Record<string, string>,
  payload: { title: string; orientation?: 'portrait' | 'landscape' },
): Promise<{ vid: string; token: string }> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/live', headers, payload });
  const data = res.json<{ data?: { vid: string; publish_token: string } }>().data;
  if (!data) throw new Error(`starting a live failed: ${res.body}`);
  return { vid: data.vid, token: data.publish_token };
}

/**
 * A host's broadcast put on air the way production does it: created through the API, published
 * over WHIP with its token, and its media reported flowing by the (fake) engine. Unlike makeLive
 * and putOnAir, which write the row, this goes through LiveService and so notifies followers.
 * The app must have been built with `media: engine`. Answers the vid.
 */
export async function goLive(
  app: FastifyInstance,
  engine: FakeEngine,
  host: { headers: Record<string, string> },
  title = 'Test live',
): Promise<string> {
  const { vid, token } = await startLive(app, host.headers, { title });
  const whip = await app.inject({
    method: 'POST',
    url: `/api/v1/whip/${vid}`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/sdp' },
    payload: 'v=0\r\n',
  });
  if (whip.statusCode !== 201) throw new Error(`publishing failed: ${whip.body}`);
  engine.publisher(vid, 'connected');
  return vid;
}

/** Ends a broadcast started with goLive as its studio does (POST /api/v1/live/:vid/end). */
export async function endLive(
  app: FastifyInstance,
  host: { headers: Record<string, string> },
  vid: string,
): Promise<void> {
  const res = await app.inject({ method: 'POST', url: `/api/v1/live/${vid}/end`, headers: host.headers });
  if (res.statusCode !== 200) throw new Error(`ending the live failed: ${res.body}`);
}
