import type { Answer } from '../../common/api/envelope';
import type { riskTokenAnswer } from '../../common/api/auth';
import { RISK_WAIT_MS, type DeviceSignals } from '../../common/risk';
import { api, ApiError } from '../lib/api';

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A drawing whose pixels differ with the GPU, fonts and anti-aliasing of the device. */
async function canvasHash(): Promise<string | null> {
  try {
    const canvas = document.createElement('canvas');
    canvas.width = 240;
    canvas.height = 60;
    const ctx = canvas.getContext('2d');
    if (!ctx) return null;
    ctx.textBaseline = 'top';
    ctx.font = '16px Arial, sans-serif';
    ctx.fillStyle = '#f60';
    ctx.fillRect(120, 4, 80, 24);
    ctx.fillStyle = '#069';
    ctx.fillText('Beamly ✦ 直播 لايف 🎥', 4, 8);
    ctx.strokeStyle = 'rgba(102, 204, 0, 0.7)';
    ctx.arc(60, 40, 18, 0, Math.PI * 2);
    ctx.stroke();
    return await sha256Hex(canvas.toDataURL());
  } catch {
    return null;
  }
}

function webglRenderer(): string | null {
  try {
    const gl = document.createElement('canvas').getContext('webgl');
    if (!gl) return null;
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const vendor: unknown = gl.getParameter(info ? info.UNMASKED_VENDOR_WEBGL : gl.VENDOR);
    const renderer: unknown = gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER);
    return `${String(vendor)}|${String(renderer)}`.slice(0, 256);
  } catch {
    return null;
  }
}

export async function collectSignals(): Promise<DeviceSignals> {
  const nav = navigator as Navigator & { deviceMemory?: number };
  return {
    ua: nav.userAgent.slice(0, 512),
    languages: [...(nav.languages ?? [])].slice(0, 20),
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone.slice(0, 64),
    tzOffset: new Date().getTimezoneOffset(),
    screen: [screen.width, screen.height],
    colorDepth: screen.colorDepth,
    pixelRatio: Math.round(window.devicePixelRatio * 100) / 100,
    cores: nav.hardwareConcurrency || 0,
    memory: nav.deviceMemory ?? null,
    touchPoints: nav.maxTouchPoints || 0,
    // Deprecated for feature detection, still a stable trait of the device for fingerprints.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    platform: nav.platform.slice(0, 64),
    canvas: await canvasHash(),
    webgl: webglRenderer(),
    webdriver: nav.webdriver,
  };
}

/** Tokens live 30 minutes on the server; a cached one is renewed well before. */
const MAX_AGE_MS = 20 * 60_000;
let pending: { token: Promise<string>; at: number } | null = null;

/** Starts getting a risk token in the background (the login card calls this when it opens). */
export function prepareRiskToken(): void {
  if (pending && Date.now() - pending.at < MAX_AGE_MS) return;
  const token = collectSignals().then((signals) =>
    api<Answer<typeof riskTokenAnswer>>('POST', '/api/v1/auth/risk-token', { signals }).then(
      (d) => d.risk_token,
    ),
  );
  const entry = { token, at: Date.now() };
  pending = entry;
  token.catch(() => {
    if (pending === entry) pending = null;
  });
}

/**
 * The risk token for a sign-up (spec §4): waits for the one being fetched or a fresh one; none
 * within 10 s fails with tongdun_fail. Tokens are single use, so the next sign-up fetches anew.
 */
export async function takeRiskToken(waitMs = RISK_WAIT_MS): Promise<string> {
  prepareRiskToken();
  const entry = pending;
  pending = null;
  let timer = 0;
  const timeout = new Promise<never>((_, reject) => {
    timer = window.setTimeout(() => reject(new ApiError(0, 'tongdun_fail', '')), waitMs);
  });
  try {
    if (!entry) throw new ApiError(0, 'tongdun_fail', '');
    return await Promise.race([entry.token, timeout]);
  } catch (err) {
    throw err instanceof ApiError && err.error !== 'network' ? err : new ApiError(0, 'tongdun_fail', '');
  } finally {
    window.clearTimeout(timer);
    // Get the next one ready for a retry.
    prepareRiskToken();
  }
}
