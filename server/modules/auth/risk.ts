import { createHash } from 'node:crypto';
import { AppError } from '../../../common/errors';
import type { DeviceSignals } from '../../../common/risk';
import type { Kv } from '../../infra/kv';
import { enforceLimits } from '../../infra/ratelimit';
import { newToken } from './crypto';

/**
 * Device risk (spec §4: register waits for a risk token; none within 10 s → tongdun_fail). A
 * provider turns signals the browser collected into a short-lived token, then judges an action
 * made with it. The built-in provider fingerprints the device and scores the signals; a
 * commercial device-intelligence service can implement the same interface.
 */
export interface RiskProvider {
  issue(signals: DeviceSignals, meta: RiskMeta): Promise<{ token: string; expiresIn: number }>;
  /** Throws tongdun_fail (no valid token) or risk_rejected (the device is refused). Single use. */
  check(token: string | undefined, meta: RiskMeta, action: 'register'): Promise<void>;
}

export interface RiskMeta {
  ip: string;
  deviceId: string | null;
  userAgent?: string | undefined;
}

export type { DeviceSignals };

interface Verdict {
  fingerprint: string;
  score: number;
  reasons: string[];
  deviceId: string | null;
}

const TOKEN_TTL_S = 30 * 60;

/** The UTC offset (minutes, Date#getTimezoneOffset sign) of a time zone now; null if unknown. */
function offsetOf(timeZone: string, at = new Date()): number | null {
  try {
    const part = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
      .formatToParts(at)
      .find((p) => p.type === 'timeZoneName')?.value;
    if (!part) return null;
    if (part === 'GMT') return 0;
    const m = /^GMT([+-])(\d{2}):(\d{2})$/.exec(part);
    if (!m) return null;
    const minutes = Number(m[2]) * 60 + Number(m[3]);
    return m[1] === '+' ? -minutes : minutes;
  } catch {
    return null;
  }
}

/** Scores what looks automated or forged; each reason adds its weight. */
export function scoreSignals(
  s: DeviceSignals,
  requestUa: string | undefined,
): { score: number; reasons: string[] } {
  const reasons: [string, number][] = [];
  if (s.webdriver) reasons.push(['webdriver', 30]);
  if (/HeadlessChrome|PhantomJS|Electron/i.test(s.ua)) reasons.push(['headless_ua', 20]);
  if (requestUa !== undefined && requestUa !== s.ua) reasons.push(['ua_mismatch', 50]);
  if (s.languages.length === 0) reasons.push(['no_languages', 20]);
  if (s.screen[0] === 0 || s.screen[1] === 0) reasons.push(['no_screen', 25]);
  if (s.canvas === null) reasons.push(['no_canvas', 20]);
  const expected = offsetOf(s.timeZone);
  if (expected === null) reasons.push(['unknown_time_zone', 20]);
  // A time zone that disagrees with the clock's offset is a spoofed environment.
  else if (Math.abs(expected - s.tzOffset) > 1) reasons.push(['tz_mismatch', 40]);
  if (s.cores === 0) reasons.push(['no_cores', 10]);
  return { score: reasons.reduce((n, [, w]) => n + w, 0), reasons: reasons.map(([r]) => r) };
}

export function fingerprintOf(s: DeviceSignals): string {
  const stable = [
    s.ua,
    s.languages.join(','),
    s.timeZone,
    s.screen.join('x'),
    s.colorDepth,
    s.pixelRatio,
    s.cores,
    s.memory ?? '',
    s.touchPoints,
    s.platform,
    s.canvas ?? '',
    s.webgl ?? '',
  ].join('|');
  return createHash('sha256').update(stable).digest('hex');
}

/**
 * The built-in provider: a fingerprint of the device's stable signals, a score of the signals
 * that betray automation or forgery, and a limit on sign-ups per fingerprint. Tokens are bound
 * to the browser's device id and used once. Every signal is the client's word (a script sends a
 * new canvas hash each time), so this is only a first filter: the limits that hold whatever the
 * client claims are in signup-limits.ts.
 */
export class FingerprintRiskProvider implements RiskProvider {
  constructor(
    private readonly kv: Kv,
    private readonly opts: { rejectScore: number; signupsPerDevicePerDay: number; limitScale: number },
  ) {}

  async issue(signals: DeviceSignals, meta: RiskMeta): Promise<{ token: string; expiresIn: number }> {
    const { score, reasons } = scoreSignals(signals, meta.userAgent);
    const verdict: Verdict = { fingerprint: fingerprintOf(signals), score, reasons, deviceId: meta.deviceId };
    const token = newToken();
    await this.kv.set(`risk:${token}`, JSON.stringify(verdict), TOKEN_TTL_S);
    return { token, expiresIn: TOKEN_TTL_S };
  }

  async check(token: string | undefined, meta: RiskMeta, action: 'register'): Promise<void> {
    if (!token || !/^[A-Za-z0-9_-]{20,64}$/.test(token)) throw new AppError('tongdun_fail');
    const raw = await this.kv.take(`risk:${token}`);
    if (!raw) throw new AppError('tongdun_fail');
    const verdict = JSON.parse(raw) as Verdict;
    if (verdict.deviceId !== meta.deviceId) throw new AppError('tongdun_fail');
    if (verdict.score >= this.opts.rejectScore) throw new AppError('risk_rejected');
    try {
      await enforceLimits(
        this.kv,
        [
          {
            limit: {
              name: `${action}:fingerprint`,
              max: this.opts.signupsPerDevicePerDay,
              windowSeconds: 86_400,
            },
            key: verdict.fingerprint,
          },
        ],
        this.opts.limitScale,
      );
    } catch {
      throw new AppError('risk_rejected');
    }
  }
}
