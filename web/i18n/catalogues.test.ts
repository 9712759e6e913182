import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '../../common/locales';
import { CATALOGUES } from './catalogues';

const en = CATALOGUES.en;

/** Placeholder names used by a message, including those inside plural branches. */
function placeholders(message: string): string[] {
  const names = new Set<string>();
  const walk = (els: MessageFormatElement[]) => {
    for (const el of els) {
      if (el.type === TYPE.argument || el.type === TYPE.number || el.type === TYPE.date) names.add(el.value);
      if (el.type === TYPE.plural || el.type === TYPE.select) {
        names.add(el.value);
        for (const opt of Object.values(el.options)) walk(opt.value);
      }
    }
  };
  walk(parse(message));
  return [...names].sort();
}

/** Texts that are legitimately the same in another language (names, symbols). */
const SAME_AS_ENGLISH_OK = /^(Beamly|OBS.*|PK|APK|\{.*\}|[©\d\s{}.,:|·-]+)$/;

describe.each(LOCALES.filter((l) => l !== 'en'))('catalogue %s', (locale) => {
  const messages = CATALOGUES[locale];

  it('has exactly the English keys', () => {
    expect(Object.keys(messages).sort()).toEqual(Object.keys(en).sort());
  });

  it('parses as ICU and uses the same placeholders as English', () => {
    for (const [key, value] of Object.entries(en)) {
      const translated = messages[key];
      if (translated === undefined) continue;
      expect(placeholders(translated), `${locale} ${key}`).toEqual(placeholders(value));
    }
  });

  it('translates every footer text and page name, the copyright line included', () => {
    // The footer is on every page; a copied line there is seen by everyone (the Japanese
    // copyright line once read "All rights reserved."). Words that are the same: listed here.
    const same = new Set(['es footer.legal']);
    const copied = Object.entries(en).filter(
      ([k, v]) =>
        (k.startsWith('footer.') || k.startsWith('page.')) &&
        messages[k] === v &&
        !same.has(`${locale} ${k}`),
    );
    expect(copied.map(([k]) => k)).toEqual([]);
  });

  it('is translated, not copied from English', () => {
    // Zodiac names are Latin in several languages; short labels coincide legitimately too
    // (German "News", "OK", "Level"). More than 4% of the catalogue equal to English is a copy.
    const copied = Object.entries(en).filter(
      ([k, v]) => messages[k] === v && !SAME_AS_ENGLISH_OK.test(v) && !k.startsWith('zodiac.'),
    );
    expect(copied.length, copied.map(([k]) => k).join(', ')).toBeLessThanOrEqual(
      Math.ceil(Object.keys(en).length * 0.04),
    );
  });
});
