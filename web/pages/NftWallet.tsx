import { useState } from 'react';
import { useConfig } from '../lib/config';
import { useAuth } from '../lib/session';
import { SignInPrompt } from '../ui/SignInPrompt';
import { NoContent } from '../ui/feedback';
import { Link } from '../ui/Link';
import { useI18n } from '../i18n/i18n';
import { COLLECTIBLES, type CollectibleId, type OwnedCollectible } from '../wallet/api';
import { formatDay } from '../wallet/format';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';

/** /wallet/nft (spec §2 NFT wallet): the numbered collectibles the user earned, and how to earn the rest. */
export default function NftWallet() {
  const { t } = useI18n();
  const { user } = useAuth();
  if (!user)
    return <SignInPrompt title={t('nft.title')} text={t('nft.signInText')} className="wallet-signin" />;
  return <Collection />;
}

function Collection() {
  const { t } = useI18n();
  const { siteName } = useConfig();
  const { data, error, loading, reload } = useApiData<{ list: OwnedCollectible[] }>('/api/v1/wallet/nft');
  const owned = data?.list ?? [];
  const missing = COLLECTIBLES.filter((id) => !owned.some((c) => c.id === id));
  return (
    <div className="wallet nft">
      <header className="page-head">
        <Link to="/wallet" className="wallet__back">
          <span className="back-arrow" aria-hidden="true">
            ←
          </span>{' '}
          {t('wallet.title')}
        </Link>
        <h1>{t('nft.title')}</h1>
        <p className="muted">{t('nft.intro', { site: siteName })}</p>
      </header>
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && owned.length === 0 && (
        <NoContent>
          <p className="muted">{t('nft.empty')}</p>
        </NoContent>
      )}
      {owned.length > 0 && (
        <ul className="nft__grid" aria-label={t('nft.owned')}>
          {owned.map((c) => (
            <li key={c.id}>
              <CollectibleCard id={c.id} image={c.image_url} owned={c} />
            </li>
          ))}
        </ul>
      )}
      {data && missing.length > 0 && (
        <section className="section" aria-labelledby="nft-missing">
          <h2 id="nft-missing">{t('nft.toEarn')}</h2>
          <ul className="nft__grid">
            {missing.map((id) => (
              <li key={id}>
                <CollectibleCard id={id} image={`/collectibles/${id}.webp`} owned={null} />
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

function CollectibleCard({
  id,
  image,
  owned,
}: {
  id: CollectibleId;
  image: string;
  owned: OwnedCollectible | null;
}) {
  const { t, locale } = useI18n();
  const [broken, setBroken] = useState(false);
  return (
    <article className={owned ? 'nft-card' : 'nft-card nft-card--locked'}>
      <div className="nft-card__art">
        {!broken && (
          <img src={image} alt="" width={240} height={240} loading="lazy" onError={() => setBroken(true)} />
        )}
        {owned && <span className="nft-card__serial">{t('nft.serial', { serial: owned.serial })}</span>}
      </div>
      <h3 className="nft-card__name">{t(`nft.${id}.name`)}</h3>
      <p className="nft-card__text">{t(owned ? `nft.${id}.text` : `nft.${id}.how`)}</p>
      {owned && (
        <p className="muted small">
          <time dateTime={owned.awarded_at}>
            {t('nft.earned', { date: formatDay(owned.awarded_at, locale) })}
          </time>
        </p>
      )}
    </article>
  );
}
