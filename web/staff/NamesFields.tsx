import { GIFT_NAME_MAX_CHARS } from '../../common/room';
import { LOCALE_NAMES, LOCALES, htmlLang, type Locale } from '../../common/locales';
import { Field } from '../ui/fields';

export type Names = Partial<Record<Locale, string>>;

/** A name in each interface language, English required (a gift's, a sticker's, a programme's). */
export function NamesFields({
  legend,
  names,
  onChange,
  maxLength = GIFT_NAME_MAX_CHARS,
}: {
  legend: string;
  names: Names;
  onChange: (n: Names) => void;
  maxLength?: number;
}) {
  return (
    <fieldset className="staff-gift__names">
      <legend>{legend}</legend>
      {LOCALES.map((l) => (
        <Field
          key={l}
          label={LOCALE_NAMES[l]}
          lang={htmlLang(l)}
          dir="auto"
          maxLength={maxLength}
          required={l === 'en'}
          value={names[l] ?? ''}
          onChange={(e) => onChange({ ...names, [l]: e.target.value })}
        />
      ))}
    </fieldset>
  );
}

/** The names to send: languages left empty show the English name. */
export function filledNames(names: Names): Names {
  return Object.fromEntries(Object.entries(names).filter(([, v]) => v?.trim()));
}
