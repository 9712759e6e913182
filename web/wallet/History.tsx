import { useConfig } from '../lib/config';
import { NoContent } from '../ui/feedback';
import { useI18n, type I18n } from '../i18n/i18n';
import type { MessageKey } from '../i18n/types';
import { giftName, useGifts, type Gift } from '../live/room-api';
import { formatAmount, formatDateTime } from './format';
import { LoadError, Loading } from './ui';
import type { Movement, useWallet } from './use-wallet';

const KINDS = new Set([
  'grant',
  'recharge',
  'recharge_reversal',
  'convert',
  'cashout_hold',
  'cashout_release',
  'payout',
]);

/** What a movement was, in words: "Recharge", "Gift sent · Rose ×10"… */
function label(i18n: Pick<I18n, 't' | 'locale'>, m: Movement, site: string, gifts: Gift[] | null): string {
  const { t } = i18n;
  if (m.kind === 'gift') {
    const sent = m.amounts.some((a) => a.amount < 0);
    const title = t(sent ? 'wallet.kind.giftSent' : 'wallet.kind.giftReceived');
    const gift = gifts?.find((g) => g.gift_id === m.meta.gift_id);
    const count = typeof m.meta.count === 'number' ? m.meta.count : 1;
    return gift
      ? `${title} · ${t('wallet.giftDetail', { gift: giftName(i18n.locale, gift), count })}`
      : title;
  }
  if (KINDS.has(m.kind)) return t(`wallet.kind.${m.kind}` as MessageKey, { site });
  return t('wallet.kind.other');
}

/** An amount with its sign and currency: "+350 coins", "−100 diamonds". */
export function AmountText({ currency, amount }: { currency: 'coin' | 'diamond'; amount: number }) {
  const { t, locale } = useI18n();
  const values = { count: Math.abs(amount), formatted: formatAmount(amount, locale, true) };
  return (
    <bdi className={amount < 0 ? 'amount amount--out' : 'amount amount--in'}>
      {t(currency === 'coin' ? 'wallet.coins' : 'wallet.diamonds', values)}
    </bdi>
  );
}

/** The wallet's movements, newest first, with "Load more" for older ones. */
export function History({ wallet }: { wallet: ReturnType<typeof useWallet> }) {
  const { t, locale } = useI18n();
  const { siteName } = useConfig();
  const { history, busy, error, more } = wallet;
  // The gifts' names in this language (a gift's movement names it by id).
  const { gifts } = useGifts();
  return (
    <section
      className="section wallet-history"
      aria-labelledby="wallet-history-title"
      aria-busy={busy !== null}
    >
      <h2 id="wallet-history-title">{t('wallet.history')}</h2>
      {busy === 'first' && history.length === 0 && <Loading />}
      {busy === null && !error && history.length === 0 && (
        <NoContent>
          <p className="muted">{t('wallet.historyEmpty')}</p>
        </NoContent>
      )}
      {history.length > 0 && (
        <ol className="wallet-history__list">
          {history.map((m) => (
            <li key={m.tx_id} className="wallet-history__item">
              <div className="wallet-history__what">
                <span className="wallet-history__label">{label({ t, locale }, m, siteName, gifts)}</span>
                <time className="muted small" dateTime={m.created_at}>
                  {formatDateTime(m.created_at, locale)}
                </time>
              </div>
              <div className="wallet-history__amounts">
                {m.amounts.map((a) => (
                  <AmountText key={a.currency} currency={a.currency} amount={a.amount} />
                ))}
              </div>
            </li>
          ))}
        </ol>
      )}
      {error !== null && history.length > 0 && <LoadError error={error} onRetry={wallet.retry} />}
      {more && !error && (
        <button
          type="button"
          className="btn btn--ghost wallet-history__more"
          disabled={busy !== null}
          aria-busy={busy === 'more'}
          onClick={wallet.loadMore}
        >
          {busy === 'more' ? t('common.loading') : t('wallet.loadMore')}
        </button>
      )}
    </section>
  );
}
