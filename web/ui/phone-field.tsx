import type { Answer } from '../../common/api/envelope';
import type { countryAnswer } from '../../common/api/auth';
import {
  getCountries,
  getCountryCallingCode,
  parsePhoneNumberFromString,
  type CountryCode,
} from 'libphonenumber-js/min';
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { chinaBlocked, FALLBACK_COUNTRY, joinPhone, nationalDigits } from '../../common/phone';
import { useI18n } from '../i18n/i18n';
import { api } from '../lib/api';

interface Country {
  code: CountryCode;
  dial: string;
  name: string;
}

const lists = new Map<string, Country[]>();

/** About 240 countries and regions with dial codes, named and sorted in the page's language. */
function countries(locale: string): Country[] {
  let list = lists.get(locale);
  if (!list) {
    const names = new Intl.DisplayNames([locale], { type: 'region', fallback: 'code' });
    const collator = new Intl.Collator(locale);
    list = getCountries()
      .map((code) => ({ code, dial: getCountryCallingCode(code), name: names.of(code) ?? code }))
      .sort((a, b) => collator.compare(a.name, b.name));
    lists.set(locale, list);
  }
  return list;
}

let visitor: Promise<{ countryCode: string; known: boolean }> | null = null;

/** The visitor's country (spec §7 getcountryCode), asked once; a failed lookup means US. */
function visitorCountry(): Promise<{ countryCode: string; known: boolean }> {
  visitor ??= api<Answer<typeof countryAnswer>>('GET', '/api/v1/geo/country').catch(() => ({
    countryCode: FALLBACK_COUNTRY,
    known: false,
  }));
  return visitor;
}

export interface PhoneValue {
  country: CountryCode;
  phone: string;
}

export interface PhoneState extends PhoneValue {
  setCountry: (c: CountryCode) => void;
  setPhone: (p: string) => void;
  /** +{dial}{number without leading zeros}, or null while the number is not valid. */
  e164: string | null;
  /** The §5 message for what is typed; null while empty or valid. */
  error: string | null;
}

/** The phone number being typed, with the default country from the visitor lookup. */
export function usePhone(initial?: PhoneValue): PhoneState {
  const { t } = useI18n();
  const [country, setCountryState] = useState<CountryCode>(initial?.country ?? FALLBACK_COUNTRY);
  const [phone, setPhone] = useState(initial?.phone ?? '');
  const [known, setKnown] = useState<string | null>(null);
  // A country the visitor picked wins over a lookup that answers after they picked it.
  const picked = useRef(initial !== undefined);
  const setCountry = useCallback((c: CountryCode) => {
    picked.current = true;
    setCountryState(c);
  }, []);
  useEffect(() => {
    let live = true;
    void visitorCountry().then((v) => {
      if (!live) return;
      setKnown(v.known ? v.countryCode : null);
      if (!picked.current) {
        const code = v.countryCode as CountryCode;
        if (getCountries().includes(code)) setCountryState(code);
      }
    });
    return () => {
      live = false;
    };
    // The lookup decides the default once, when the field first appears.
  }, []);
  const { e164, error } = useMemo(() => {
    if (!phone) return { e164: null, error: null };
    const digits = nationalDigits(phone);
    const dial = getCountryCallingCode(country);
    const joined = digits ? joinPhone(dial, digits) : null;
    const valid = joined !== null && parsePhoneNumberFromString(joined)?.isValid() === true;
    if (!valid || chinaBlocked(dial, known)) return { e164: null, error: t('auth.errors.phoneInvalid') };
    return { e164: joined, error: null };
  }, [country, phone, known, t]);
  return { country, phone, setCountry, setPhone, e164, error };
}

/** Country selector with dial codes and the national number (digits; leading zeros are fine). */
export function PhoneField({ state, autoComplete }: { state: PhoneState; autoComplete: string }) {
  const { t, locale } = useI18n();
  const id = useId();
  const list = useMemo(() => countries(locale), [locale]);
  return (
    <div className="field phone-field">
      <label htmlFor={`${id}-country`}>{t('auth.country')}</label>
      <select
        id={`${id}-country`}
        value={state.country}
        autoComplete="country"
        onChange={(e) => state.setCountry(e.target.value as CountryCode)}
      >
        {list.map((c) => (
          <option key={c.code} value={c.code}>
            {`${c.name} (+${c.dial})`}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-number`}>{t('auth.phone')}</label>
      <div className="phone-field__row" dir="ltr">
        <span className="phone-field__dial" aria-hidden="true">
          +{getCountryCallingCode(state.country)}
        </span>
        <input
          id={`${id}-number`}
          type="tel"
          inputMode="numeric"
          autoComplete={autoComplete}
          maxLength={20}
          value={state.phone}
          onChange={(e) => state.setPhone(e.target.value)}
          aria-invalid={state.error ? true : undefined}
          aria-describedby={state.error ? `${id}-err` : undefined}
        />
      </div>
      {state.error && (
        <p id={`${id}-err`} className="field__error" role="alert">
          {state.error}
        </p>
      )}
    </div>
  );
}
