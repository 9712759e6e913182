import { countryName } from '../../common/countries';
import { useI18n } from '../i18n/i18n';

/** A country's flag (an SVG the build copies from country-flag-icons), named for screen readers. */
export function Flag({ country, decorative = false }: { country: string; decorative?: boolean }) {
  const { locale } = useI18n();
  if (!/^[A-Z]{2}$/.test(country)) return null;
  return (
    <img
      className="flag"
      src={`/flags/${country}.svg`}
      alt={decorative ? '' : countryName(country, locale)}
      width={18}
      height={12}
      loading="lazy"
    />
  );
}
