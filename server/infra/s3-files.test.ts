import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShortVideo } from '../../common/api/videos';
import { makeTestVideo } from '../modules/videos/testing';
import { createTestApp, type TestApp } from '../testing/app';
import { signedInPerson } from '../testing/auth';
import { until } from '../testing/wait';
import { MemoryKv } from './kv';
import { s3FileStore } from './s3-files';

// The file store's S3 twin against a local S3 server (s3rver, from npm): what is put can be read
// back at its public URL with its type, the same bytes keep their name, and a whole site
// configured with S3_* keeps its uploads (a short video and its poster) there, not on its disk.
const BUCKET = 'beamly-uploads';
let s3: S3rver;
let endpoint: string;

beforeAll(async () => {
  s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: mkdtempSync(join(tmpdir(), 'beamly-s3-')),
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  const { port } = await s3.run();
  endpoint = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await s3.close();
});

const store = () =>
  s3FileStore({
    endpoint,
    region: 'us-east-1',
    bucket: BUCKET,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    publicUrl: `${endpoint}/${BUCKET}`,
  });

describe('s3FileStore', () => {
  it('stores bytes and files under their hash, readable at the public URL with their type', async () => {
    const files = store();
    const bytes = Buffer.from('a small picture, pretend');
    const url = await files.put('avatars', bytes, 'webp');
    expect(url).toMatch(new RegExp(`^${endpoint}/${BUCKET}/avatars/[0-9a-f]{32}\\.webp$`));
    const got = await fetch(url);
    expect(got.headers.get('content-type')).toBe('image/webp');
    expect(Buffer.from(await got.arrayBuffer())).toEqual(bytes);
    // The same bytes again: the same name, nothing sent twice.
    expect(await files.put('avatars', bytes, 'webp')).toBe(url);

    const path = join(mkdtempSync(join(tmpdir(), 'beamly-s3-file-')), 'a.mp4');
    writeFileSync(path, Buffer.alloc(300_000, 7));
    const fileUrl = await files.putFile('videos', path, 'mp4');
    const file = await fetch(fileUrl);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(readFileSync(path));
  });
});

describe('a site with S3_* set', () => {
  let t: TestApp;
  const kv = new MemoryKv();
  beforeAll(async () => {
    t = await createTestApp(
      { kv },
      {
        S3_BUCKET: BUCKET,
        S3_ENDPOINT: endpoint,
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
      },
    );
  }, 60_000);
  afterAll(async () => {
    await t.close();
  });

  it('keeps a short video and its poster in the bucket and lets pages load them from there', async () => {
    const host = await signedInPerson(t, kv, 's3-host@example.com');
    const path = join(t.config.DATA_DIR, 'in.mp4');
    await makeTestVideo(path, { seconds: 1, width: 160, height: 284 });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/videos',
      headers: { ...host.headers, 'content-type': 'video/mp4' },
      payload: readFileSync(path),
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json<{ data: ShortVideo }>().data.id;
    let v: ShortVideo | null = null;
    await until(
      'the video to be ready',
      async () => {
        v = (await t.app.inject({ url: `/api/v1/videos/${id}`, headers: host.headers })).json<{
          data: ShortVideo;
        }>().data;
        return v.status !== 'processing';
      },
      { ms: 60_000, everyMs: 200 },
    );
    const ready = v as ShortVideo | null;
    expect(ready?.status).toBe('ready');
    for (const url of [ready?.url ?? '', ready?.poster ?? '']) {
      expect(url.startsWith(`${endpoint}/${BUCKET}/`), url).toBe(true);
      expect((await fetch(url)).status).toBe(200);
    }
    // The bytes are the MP4 itself (not wrapped in a transfer framing the server kept).
    const mp4 = Buffer.from(await (await fetch(ready?.url ?? '')).arrayBuffer());
    expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const page = await t.app.inject({ url: '/en/videos' });
    expect(page.headers['content-security-policy']).toContain(`media-src 'self' blob: ${endpoint}`);
  }, 120_000);
});
