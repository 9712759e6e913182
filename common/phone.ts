// Spec §5 phone rules shared by the browser and the server. The number itself is checked with
// libphonenumber-js (the browser with its small metadata, the server with the mobile metadata,
// since the number must receive an SMS code); these are the rules around it.

/** Digits only (spec §5); spaces the user typed for readability are tolerated. */
export function nationalDigits(input: string): string | null {
  const compact = input.replace(/[\s-]/g, '');
  return /^[0-9]{1,17}$/.test(compact) ? compact : null;
}

/** Leading zeros are stripped before joining the dial code (spec §5: 0612… in France is +33 612…). */
export function joinPhone(dialCode: string, national: string): string {
  return `+${dialCode}${national.replace(/^0+/, '')}`;
}

/**
 * Spec §5: mainland China numbers are refused when the dial code is 86 and the visitor's country
 * is China or unknown.
 */
export function chinaBlocked(dialCode: string, visitorCountry: string | null): boolean {
  return dialCode === '86' && (visitorCountry === null || visitorCountry === 'CN');
}

/** Spec §9 verify-code types: register by phone 4 (the SMS default), forget flow 3. */
export const SMS_TYPE = { register: 4, forget: 3 } as const;
export type SmsType = (typeof SMS_TYPE)[keyof typeof SMS_TYPE];

/** Countries answered when the visitor's own cannot be looked up (spec §8: defaults to US). */
export const FALLBACK_COUNTRY = 'US';
