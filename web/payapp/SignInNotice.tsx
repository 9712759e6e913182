import { useI18n } from '../i18n/i18n';

/** A visitor on a payment screen: sign in on the site, then come back here (`back`). */
export function SignInNotice({ text, back }: { text: string; back: string }) {
  const { t, locale } = useI18n();
  return (
    <div className="pay-card pay-notice">
      <p>{text}</p>
      <a className="btn btn--primary" href={`/${locale}/welcome?redirect=${encodeURIComponent(back)}`}>
        {t('auth.signIn')}
      </a>
    </div>
  );
}
