import { CASHOUT_TERMS } from '../../common/money';
import { useI18n } from '../i18n/i18n';
import type { CashoutOverview } from '../wallet/api';
import { formatAmount, formatDay, formatUsd, utcOffsetLabel } from '../wallet/format';

/** The rules of cashing out (spec §9), with the numbers the server is configured with. */
export function Requirements({ overview }: { overview: CashoutOverview }) {
  const { t, locale } = useI18n();
  const { rules, week } = overview;
  const minDiamonds = rules.minCashoutUsd * rules.diamondsPerUsd;
  const left = Math.max(0, week.cap_cents - week.used_cents);
  const usd = (cents: number) => formatUsd(cents, locale);
  return (
    <section className="pay-card" aria-labelledby="cashout-rules">
      <h2 id="cashout-rules">{t('cashout.rules.title')}</h2>
      <ul className="rules-list">
        <li>
          {t('cashout.rules.rate', {
            count: rules.diamondsPerUsd,
            formatted: formatAmount(rules.diamondsPerUsd, locale),
            usd: usd(100),
          })}
        </li>
        <li>
          {t('cashout.rules.minimum', {
            usd: usd(rules.minCashoutUsd * 100),
            count: minDiamonds,
            formatted: formatAmount(minDiamonds, locale),
          })}
        </li>
        <li>
          {t('cashout.rules.cap', { usd: usd(week.cap_cents), zone: utcOffsetLabel(rules.weekUtcOffset) })}
        </li>
        <li>{t('cashout.rules.payee')}</li>
        <li>
          {t('cashout.rules.review', {
            min: CASHOUT_TERMS.reviewDays.min,
            max: CASHOUT_TERMS.reviewDays.max,
          })}
        </li>
        <li>
          {t('cashout.rules.payout', {
            min: CASHOUT_TERMS.payoutDays.min,
            max: CASHOUT_TERMS.payoutDays.max,
          })}
        </li>
        <li>{t('cashout.rules.fee', { fee: usd(CASHOUT_TERMS.providerFeeUsd * 100) })}</li>
      </ul>
      <div className="cashout-week">
        <label htmlFor="cashout-week-meter">
          {t('cashout.week', {
            start: formatDay(week.start, locale),
            zone: utcOffsetLabel(rules.weekUtcOffset),
          })}
        </label>
        <meter id="cashout-week-meter" min={0} max={week.cap_cents} value={week.used_cents} />
        <p className="muted small">
          {t('cashout.weekUsed', { used: usd(week.used_cents), left: usd(left) })}
        </p>
      </div>
    </section>
  );
}

const FAQ = ['when', 'rejected', 'fees', 'hold', 'change'] as const;

/** Questions people ask before their first cash-out. */
export function CashoutFaq() {
  const { t, locale } = useI18n();
  const values = {
    reviewMin: CASHOUT_TERMS.reviewDays.min,
    reviewMax: CASHOUT_TERMS.reviewDays.max,
    payMin: CASHOUT_TERMS.payoutDays.min,
    payMax: CASHOUT_TERMS.payoutDays.max,
    fee: formatUsd(CASHOUT_TERMS.providerFeeUsd * 100, locale),
    days: CASHOUT_TERMS.providerHoldDays,
  };
  return (
    <section className="pay-faq" aria-labelledby="cashout-faq">
      <h2 id="cashout-faq">{t('cashout.faq.title')}</h2>
      {FAQ.map((q) => (
        <details key={q} className="pay-faq__item">
          <summary>{t(`cashout.faq.${q}.q`)}</summary>
          <p>{t(`cashout.faq.${q}.a`, values)}</p>
        </details>
      ))}
    </section>
  );
}
