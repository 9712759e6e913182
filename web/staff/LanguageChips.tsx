import { LOCALE_NAMES, LOCALES, htmlLang, type Locale } from '../../common/locales';
import { useI18n } from '../i18n/i18n';

/**
 * The ten languages as chips: the one open pressed, a tick on those written, an accent on those
 * saved in the console (a news article's or a page's texts).
 */
export function LanguageChips({
  current,
  onPick,
  written,
  edited = written,
}: {
  current: Locale;
  onPick: (l: Locale) => void;
  written: (l: Locale) => boolean;
  edited?: (l: Locale) => boolean;
}) {
  const { t } = useI18n();
  return (
    <div className="staff-news__langs" role="group" aria-label={t('console.news.languages')}>
      {LOCALES.map((l) => (
        <button
          key={l}
          type="button"
          lang={htmlLang(l)}
          className={`chip${edited(l) ? ' staff-news__written' : ''}`}
          aria-pressed={current === l}
          onClick={() => onPick(l)}
        >
          {LOCALE_NAMES[l]}
          {written(l) ? ' ✓' : ''}
        </button>
      ))}
    </div>
  );
}
