import { useI18n } from '../i18n/i18n';
import type { Balances as BalanceValues } from './api';
import { formatAmount } from './format';
import { CoinIcon, DiamondIcon } from './icons';

/**
 * Coins (spent on gifts, bought by recharging) and diamonds (earned from gifts, converted or
 * cashed out), as two tiles. Null while loading.
 */
export function Balances({ balances }: { balances: BalanceValues | null }) {
  const { t, locale } = useI18n();
  const value = (n: number | undefined) => (n === undefined ? '…' : formatAmount(n, locale));
  return (
    <dl className="balances" aria-busy={balances === null}>
      <div className="balance balance--coin">
        <dt className="balance__label">
          <CoinIcon /> {t('wallet.coinsLabel')}
        </dt>
        <dd className="balance__value">{value(balances?.coin)}</dd>
      </div>
      <div className="balance balance--diamond">
        <dt className="balance__label">
          <DiamondIcon /> {t('wallet.diamondsLabel')}
        </dt>
        <dd className="balance__value">{value(balances?.diamond)}</dd>
      </div>
    </dl>
  );
}
