import type { z } from 'zod';
import type { deviceSignalsSchema } from './api/auth';

/** What the browser reports for the device risk token (spec §4), as the contract describes it. */
export type DeviceSignals = z.infer<typeof deviceSignalsSchema>;

/** Spec §4, §9: sign-up waits this long for a risk token, then fails with tongdun_fail. */
export const RISK_WAIT_MS = 10_000;
