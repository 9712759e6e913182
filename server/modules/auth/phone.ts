import {
  getCountryCallingCode,
  isSupportedCountry,
  parsePhoneNumberFromString,
  type CountryCode,
} from 'libphonenumber-js/mobile';
import { AppError } from '../../../common/errors';
import { chinaBlocked, joinPhone, nationalDigits } from '../../../common/phone';

/**
 * The server's phone check (spec §5, §8 code 12000): the mobile metadata, because the number must
 * be able to receive an SMS code. Answers E.164 (+8613812345678).
 */
export function phoneFromParts(country: string, phone: string, visitorCountry: string | null): string {
  const digits = nationalDigits(phone);
  if (!digits || !isSupportedCountry(country)) throw new AppError('invalid_phone');
  const dial = getCountryCallingCode(country);
  return checkedE164(joinPhone(dial, digits), country, visitorCountry);
}

/** A phone sent as one string (sign-in name, phoneWithCode): +{dial code}{number}. */
export function phoneFromE164(value: string, visitorCountry: string | null): string {
  if (!/^\+[0-9]{6,17}$/.test(value)) throw new AppError('invalid_phone');
  return checkedE164(value, undefined, visitorCountry);
}

function checkedE164(e164: string, country: CountryCode | undefined, visitorCountry: string | null): string {
  const parsed = parsePhoneNumberFromString(e164, country ? { defaultCountry: country } : undefined);
  if (!parsed?.isValid()) throw new AppError('invalid_phone');
  if (chinaBlocked(parsed.countryCallingCode, visitorCountry)) throw new AppError('invalid_phone');
  return parsed.number;
}

/** What a name given to sign-in or account-exists is: an e-mail address or a phone number. */
export function isPhoneName(name: string): boolean {
  return name.trim().startsWith('+');
}
