import sharp from 'sharp';
import svgCaptcha from 'svg-captcha';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../../infra/kv';
import { createTestApp, type TestApp } from '../../../testing/app';
import { checkCaptcha } from '../checks';
import { attack, type CaptchaImage, type Solved } from '../../../testing/captcha-attacker';
import glyphData from './assets/glyphs.json';

// The attack reported in issue 16: learn each character's shape from solved captchas, then read
// new ones. The site's captcha must now defeat it; the controls show the attacker is no straw man.
let t: TestApp;
const kv = new MemoryKv();

beforeAll(async () => {
  t = await createTestApp({ kv }, { RATE_LIMIT_SCALE: '100' });
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

/** A captcha as the API serves it, with the answer the server kept (what a solved one teaches). */
async function served(): Promise<Solved> {
  const res = await t.app.inject({ url: '/api/v1/auth/captcha' });
  expect(res.statusCode).toBe(200);
  const data = res.json<{ data: { id: string; image?: string; svg?: string } }>().data;
  const answer = (await kv.get(`captcha:${data.id}`)) ?? '';
  const image: CaptchaImage = data.svg
    ? { svg: data.svg }
    : { png: Buffer.from((data.image ?? '').replace(/^data:image\/png;base64,/, ''), 'base64') };
  return { image, answer };
}

/** svg-captcha as the site used it until issue 16. */
function oldCaptcha(): Solved {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- the typings declare a class for a plain options object
  const c = svgCaptcha.create({
    size: 4,
    noise: 2,
    ignoreChars: '0oO1ilI',
    color: false,
    background: '#f5f4f9',
  });
  return { image: { svg: c.data }, answer: c.text };
}

/** A small deterministic random source: the control below reads the same captchas every run. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

/** The same characters as the site's, undistorted: one font, fixed places, no noise. */
async function plainCaptcha(next: () => number): Promise<Solved> {
  const { alphabet, fonts } = glyphData as unknown as {
    alphabet: string;
    fonts: { chars: Record<string, { commands: [string, ...number[]][] }> }[];
  };
  const answer = Array.from({ length: 5 }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
  const paths = Array.from(answer).map((ch, i) => {
    const d = (fonts[0]?.chars[ch]?.commands ?? [])
      .map(
        ([type, ...n]) =>
          type + n.map((v, j) => (j % 2 === 0 ? 12 + i * 36 + v * 40 : 46 + v * 40).toFixed(1)).join(' '),
      )
      .join('');
    return `<path d="${d}" fill="#333"/>`;
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="64"><rect width="100%" height="100%" fill="#eef"/>${paths.join('')}</svg>`;
  return { image: { png: await sharp(Buffer.from(svg)).png().toBuffer() }, answer };
}

describe('the image captcha against a template-matching attacker', () => {
  it('the attacker reads (almost) none of the captchas the site serves, after learning from 120', async () => {
    const training: Solved[] = [];
    for (let i = 0; i < 120; i++) training.push(await served());
    const tests: Solved[] = [];
    for (let i = 0; i < 40; i++) tests.push(await served());
    const read = await attack(training, tests);
    expect(read.either, JSON.stringify(read)).toBeLessThanOrEqual(1);
  });

  it('control: the same attacker reads most of the old svg-captcha, after learning from as many', async () => {
    // The report's script learnt from 40; with 120 every character of its 56 has been seen.
    const all = Array.from({ length: 160 }, oldCaptcha);
    const read = await attack(all.slice(0, 120), all.slice(120));
    expect(read.outline, JSON.stringify(read)).toBeGreaterThanOrEqual(30);
  });

  it('control: its pixel matcher reads most undistorted renderings of the same glyphs', async () => {
    // Answers drawn at random, the attacker read 32-39 of 40 (40 tries), and below 30 once in a
    // CI run: a fixed draw makes the control one measurement (35 of 40), not a dice roll.
    const next = random(16);
    const all: Solved[] = [];
    for (let i = 0; i < 80; i++) all.push(await plainCaptcha(next));
    const read = await attack(all.slice(0, 40), all.slice(40));
    expect(read.pixels, JSON.stringify(read)).toBeGreaterThanOrEqual(30);
  });

  it('no two renderings of the same answer are alike', async () => {
    const { renderCaptcha } = await import('./image');
    const a = await renderCaptcha('ACE47');
    const b = await renderCaptcha('ACE47');
    expect(a.text).toBe('ACE47');
    expect(a.png.equals(b.png)).toBe(false);
    const meta = await sharp(a.png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 200, 64]);
  });
});

describe('the audio alternative', () => {
  it('speaks six digits in the page language as a WAV, and the captcha then wants those digits', async () => {
    const first = await t.app.inject({ url: '/api/v1/auth/captcha' });
    const { id } = first.json<{ data: { id: string } }>().data;
    const imageAnswer = await kv.get(`captcha:${id}`);
    const res = await t.app.inject({ url: `/api/v1/auth/captcha/${id}/audio?locale=de` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('audio/wav');
    expect(res.headers['cache-control']).toBe('no-store');
    const wav = res.rawPayload;
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect([wav.readUInt16LE(20), wav.readUInt16LE(22), wav.readUInt32LE(24), wav.readUInt16LE(34)]).toEqual([
      1, 1, 8000, 16,
    ]);
    const seconds = wav.readUInt32LE(40) / 2 / 8000;
    expect(seconds).toBeGreaterThan(4);
    expect(seconds).toBeLessThan(15);
    const digits = (await kv.get(`captcha:${id}`)) ?? '';
    expect(digits).toMatch(/^[0-9]{6}$/);
    expect(digits).not.toBe(imageAnswer);
    // Fetched again (a range request, a replay): the same digits, the same sound.
    const again = await t.app.inject({ url: `/api/v1/auth/captcha/${id}/audio?locale=de` });
    expect(again.rawPayload.equals(wav)).toBe(true);
    expect(await kv.get(`captcha:${id}`)).toBe(digits);
    // Typed as heard, with spaces between the digits.
    await checkCaptcha(kv, id, digits.split('').join(' '));
  });

  it('is only given for a captcha that is still open', async () => {
    const res = await t.app.inject({ url: `/api/v1/auth/captcha/${'x'.repeat(32)}/audio` });
    expect([res.statusCode, res.json<{ error: string }>().error]).toEqual([400, 'wrong_captcha']);
  });
});
