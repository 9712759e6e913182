import type { FastifyInstance } from 'fastify';
import type { FakeEngine } from './fake-engine';

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
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/live',
    headers: host.headers,
    payload: { title },
  });
  const data = res.json<{ data?: { vid: string; publish_token: string } }>().data;
  if (!data) throw new Error(`starting a live failed: ${res.body}`);
  const whip = await app.inject({
    method: 'POST',
    url: `/api/v1/whip/${data.vid}`,
    headers: { authorization: `Bearer ${data.publish_token}`, 'content-type': 'application/sdp' },
    payload: 'v=0\r\n',
  });
  if (whip.statusCode !== 201) throw new Error(`publishing failed: ${whip.body}`);
  engine.publisher(data.vid, 'connected');
  return data.vid;
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
