import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locale } from '../../../../common/locales';
import { ROOT } from '../../../paths';

/**
 * The audio captcha, for people who cannot see the image: digits spoken in the page's language
 * (recorded once with espeak-ng, see scripts/captcha-assets.mjs), each at its own speed, pitch
 * and loudness, with random pauses, over a murmur of other digits played backwards and a hiss.
 * The murmur is quieter than the voice and cannot be understood, so a person hears the digits;
 * it also means no clip sits alone in silence for a script to cut out and compare.
 */
export const AUDIO_DIGITS = 6;
const VOICES_DIR = join(ROOT, 'server', 'modules', 'auth', 'captcha', 'assets', 'voices');

interface Voice {
  sampleRate: number;
  digits: Float32Array[];
}
const voices = new Map<string, Voice>();

/** The locale's recorded digits (zh-TW speaks Mandarin, as zh); English when there is none. */
function voiceFor(locale: Locale): Voice {
  const name = locale === 'zh-TW' ? 'zh' : locale;
  const cached = voices.get(name);
  if (cached) return cached;
  let raw: { sampleRate: number; digits: string[] };
  try {
    raw = JSON.parse(readFileSync(join(VOICES_DIR, `${name}.json`), 'utf8')) as typeof raw;
  } catch {
    if (name === 'en') throw new Error('the English captcha voice is missing');
    return voiceFor('en');
  }
  const voice: Voice = {
    sampleRate: raw.sampleRate,
    digits: raw.digits.map((b64) => {
      const bytes = Buffer.from(b64, 'base64');
      const pcm = new Float32Array(bytes.length / 2);
      for (let i = 0; i < pcm.length; i++) pcm[i] = bytes.readInt16LE(i * 2) / 32768;
      return pcm;
    }),
  };
  voices.set(name, voice);
  return voice;
}

/**
 * mulberry32: the same seed renders the same audio, so a browser that fetches it again (a range
 * request, a replay) hears the same digits, on any node.
 */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A clip played faster or slower (pitch follows), by linear interpolation. */
function resample(clip: Float32Array, rate: number): Float32Array {
  const out = new Float32Array(Math.floor(clip.length / rate));
  for (let i = 0; i < out.length; i++) {
    const at = i * rate;
    const j = Math.floor(at);
    const f = at - j;
    out[i] = (clip[j] ?? 0) * (1 - f) + (clip[j + 1] ?? 0) * f;
  }
  return out;
}

function mix(into: Float32Array, clip: Float32Array, at: number, gain: number): void {
  for (let i = 0; i < clip.length && at + i < into.length; i++)
    into[at + i] = (into[at + i] ?? 0) + (clip[i] ?? 0) * gain;
}

/** 16-bit mono PCM in a RIFF/WAVE container: every browser plays it. */
function wav(samples: Float32Array, sampleRate: number): Buffer {
  const data = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, s)) * 32767), i * 2));
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** A new answer: digits from a CSPRNG. */
export function audioAnswer(): string {
  return Array.from({ length: AUDIO_DIGITS }, () => String(randomInt(10))).join('');
}

/** The digits spoken as a WAV file; the seed decides everything else (speeds, pauses, murmur). */
export function renderAudioCaptcha(locale: Locale, digits: string, seed: number): Buffer {
  const random = seeded(seed);
  const between = (min: number, max: number) => min + random() * (max - min);
  const below = (n: number) => Math.floor(random() * n);
  const voice = voiceFor(locale);
  const rate = voice.sampleRate;
  const spoken = Array.from(digits).map((d) => ({
    clip: resample(voice.digits[Number(d)] ?? new Float32Array(), between(0.88, 1.14)),
    gain: between(0.7, 0.95),
    pause: Math.floor(rate * between(0.45, 0.9)),
  }));
  const lead = Math.floor(rate * 0.6);
  const length = lead + spoken.reduce((n, s) => n + s.clip.length + s.pause, 0) + Math.floor(rate * 0.4);
  const out = new Float32Array(length);
  // The murmur: backwards digits, quieter, anywhere (they overlap the spoken ones on purpose).
  for (let i = 0; i < Math.ceil(length / rate) * 2; i++) {
    const clip = resample(voice.digits[below(10)] ?? new Float32Array(), between(0.8, 1.25)).reverse();
    mix(out, clip, below(Math.max(1, length - clip.length)), between(0.1, 0.18));
  }
  for (let i = 0; i < length; i++) out[i] = (out[i] ?? 0) + between(-0.03, 0.03);
  let at = lead;
  for (const s of spoken) {
    mix(out, s.clip, at, s.gain);
    at += s.clip.length + s.pause;
  }
  return wav(out, rate);
}
