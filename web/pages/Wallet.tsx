import { useState } from 'react';
import type { PageProps } from '../lib/page';
import { useAuth } from '../lib/session';
import { SignInPrompt } from '../ui/SignInPrompt';
import { useFeedback } from '../lib/feedback';
import { Link } from '../ui/Link';
import { useI18n } from '../i18n/i18n';
import { Balances } from '../wallet/Balances';
import { ConvertDialog } from '../wallet/ConvertDialog';
import { cashoutHref, formatAmount, rechargeHref } from '../wallet/format';
import { History } from '../wallet/History';
import { LoadError } from '../wallet/ui';
import { useWallet } from '../wallet/use-wallet';
import type { WalletData } from './data';

/** /wallet (spec §2): coins and diamonds, recharge, convert, cash out, the NFT wallet, history. */
export default function Wallet({ data }: PageProps) {
  const { rules } = data as WalletData;
  const { t } = useI18n();
  const { user } = useAuth();
  if (!user)
    return <SignInPrompt title={t('wallet.title')} text={t('wallet.signInText')} className="wallet-signin" />;
  return <WalletView diamondsPerCoin={rules.convertDiamondsPerCoin} />;
}

function WalletView({ diamondsPerCoin }: { diamondsPerCoin: number }) {
  const { t, locale } = useI18n();
  const { toast } = useFeedback();
  const wallet = useWallet();
  const [converting, setConverting] = useState(false);
  const { balances } = wallet;

  return (
    <div className="wallet">
      <header className="page-head wallet__head">
        <h1>{t('wallet.title')}</h1>
        <Link to="/wallet/nft" className="wallet__nft-link">
          {t('wallet.nftLink')}
        </Link>
      </header>
      {wallet.failed === 'first' && balances === null ? (
        <LoadError error={wallet.error} onRetry={wallet.retry} />
      ) : (
        <>
          <Balances balances={balances} />
          <div className="wallet__actions">
            {/* The payment app is its own page (spec §2), so these are full page loads. */}
            <a className="btn btn--primary" href={rechargeHref(locale)}>
              {t('wallet.recharge')}
            </a>
            <button
              type="button"
              className="btn btn--ghost"
              disabled={balances === null}
              onClick={() => setConverting(true)}
            >
              {t('wallet.convert.open')}
            </button>
            <a className="btn btn--ghost" href={cashoutHref(locale)}>
              {t('wallet.cashOut')}
            </a>
          </div>
          <History wallet={wallet} />
        </>
      )}
      {converting && balances && (
        <ConvertDialog
          diamonds={balances.diamond}
          diamondsPerCoin={diamondsPerCoin}
          onClose={() => setConverting(false)}
          onDone={(next, coins) => {
            setConverting(false);
            toast(t('wallet.convert.done', { count: coins, formatted: formatAmount(coins, locale) }));
            wallet.refresh(next);
          }}
        />
      )}
    </div>
  );
}
