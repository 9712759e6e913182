/** What the browser reports for the device risk token (spec §4); scored by server/modules/auth/risk.ts. */
export interface DeviceSignals {
  ua: string;
  languages: string[];
  timeZone: string;
  /** Date#getTimezoneOffset() at collection time, in minutes. */
  tzOffset: number;
  screen: [number, number];
  colorDepth: number;
  pixelRatio: number;
  cores: number;
  memory: number | null;
  touchPoints: number;
  platform: string;
  /** SHA-256 (hex) of a canvas drawing: differs with GPU, fonts and anti-aliasing. */
  canvas: string | null;
  webgl: string | null;
  webdriver: boolean;
}

/** Spec §4, §9: sign-up waits this long for a risk token, then fails with tongdun_fail. */
export const RISK_WAIT_MS = 10_000;
