import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInUser } from '../../testing/auth';

const kv = new MemoryKv();
let t: TestApp;
let headers: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp({ kv });
  const user = await signedInUser(t, kv, 'ava@example.com', 'ava-secret');
  headers = user.headers;
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

function upload(body: Buffer, type: string, crop = 'x=0&y=0&size=200'): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/me/avatar?${crop}`,
    payload: body,
    headers: { ...headers, 'content-type': type },
  });
}

/** A 400×300 photo: left half red, right half blue. */
function photo(orientation?: number): Promise<Buffer> {
  const img = sharp({ create: { width: 400, height: 300, channels: 3, background: '#ff0000' } }).composite([
    { input: { create: { width: 200, height: 300, channels: 3, background: '#0000ff' } }, left: 200, top: 0 },
  ]);
  return (orientation ? img.jpeg().withMetadata({ orientation }) : img.jpeg()).toBuffer();
}

describe('avatar upload', () => {
  it('crops the chosen square, makes a 256 px WebP, and serves it forever', async () => {
    const res = await upload(await photo(), 'image/jpeg', 'x=200&y=50&size=200');
    expect(res.statusCode).toBe(200);
    const face = res.json<{ data: { face: string } }>().data.face;
    expect(face).toMatch(/^\/uploads\/avatars\/[0-9a-f]{32}\.webp$/);
    const served = await t.app.inject({ url: face });
    expect(served.headers['cache-control']).toContain('immutable');
    const { width, height, format } = await sharp(served.rawPayload).metadata();
    expect({ width, height, format }).toEqual({ width: 256, height: 256, format: 'webp' });
    // The crop came from the blue half.
    const { dominant } = await sharp(served.rawPayload).stats();
    expect(dominant.b).toBeGreaterThan(200);
    expect(dominant.r).toBeLessThan(60);
  });

  it('follows the EXIF orientation (a portrait photo shot sideways)', async () => {
    // Orientation 6: the stored 400×300 image displays as 300×400.
    expect((await upload(await photo(6), 'image/jpeg', 'x=0&y=100&size=300')).statusCode).toBe(200);
    expect((await upload(await photo(6), 'image/jpeg', 'x=150&y=0&size=300')).json()).toMatchObject({
      details: { field: 'crop' },
    });
  });

  it('refuses what is not an acceptable image', async () => {
    expect((await upload(Buffer.from('%PDF-1.4 not an image'), 'image/png')).json()).toMatchObject({
      status: 400,
      details: { field: 'image' },
    });
    expect((await upload(Buffer.from('hello'), 'text/plain')).statusCode).toBe(400);
    const tiff = await sharp({ create: { width: 50, height: 50, channels: 3, background: '#fff' } })
      .tiff()
      .toBuffer();
    expect((await upload(tiff, 'image/png', 'x=0&y=0&size=40')).json()).toMatchObject({
      details: { field: 'image' },
    });
    expect((await upload(await photo(), 'image/jpeg', 'x=300&y=0&size=200')).json()).toMatchObject({
      details: { field: 'crop' },
    });
    expect((await upload(Buffer.alloc(6 * 1024 * 1024), 'image/jpeg')).statusCode).toBe(413);
  });

  it('needs a signed-in user', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/me/avatar?x=0&y=0&size=100',
      payload: await photo(),
      headers: { 'content-type': 'image/jpeg' },
    });
    expect(res.json()).toMatchObject({ code: 402 });
  });
});
