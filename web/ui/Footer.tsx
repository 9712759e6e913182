import type { StaticPageSlug } from '../../common/pages';
import { FeedbackLink } from '../feedback/FeedbackLink';
import { useConfig } from '../lib/config';
import { useI18n } from '../i18n/i18n';
import { useOpenCookieSettings } from './CookieBanner';
import { FacebookIcon, InstagramIcon, TwitterIcon, YoutubeIcon } from './icons';
import { ExternalLink, Link } from './Link';

const COMPANY: StaticPageSlug[] = ['about', 'contact', 'safety-advocates-applicant'];
const SAFETY: StaticPageSlug[] = [
  'trust-and-safety',
  'user-protection',
  'anti-bullying',
  'child-assault-preventing',
  'child-safety-policy-agreement',
  'parent-guide',
  'community-guidelines',
];
const LEGAL: StaticPageSlug[] = [
  'terms',
  'privacy',
  'law-enforcement-guidelines',
  '2257-exemption-statement',
  'refund-policy',
  'privacy-notice',
  'cookie-policy',
  'users-choice',
];

export function Footer() {
  const { t } = useI18n();
  const config = useConfig();
  const openCookieSettings = useOpenCookieSettings();
  const { links, siteName } = config;
  const pageLinks = (slugs: StaticPageSlug[]) =>
    slugs.map((slug) => (
      <li key={slug}>
        <Link to={`/${slug}`}>{t(`page.${slug}`)}</Link>
      </li>
    ));
  const social = [
    { name: 'Facebook', href: links.facebook, Icon: FacebookIcon },
    { name: 'X (Twitter)', href: links.twitter, Icon: TwitterIcon },
    { name: 'YouTube', href: links.youtube, Icon: YoutubeIcon },
    { name: 'Instagram', href: links.instagram, Icon: InstagramIcon },
  ];
  return (
    <footer className="site-footer">
      <div className="site-footer__inner">
        <nav className="footer-cols" aria-label={t('footer.nav')}>
          <div>
            <h2 className="footer-title">{t('footer.company')}</h2>
            <ul>
              {pageLinks(COMPANY)}
              <li>
                <ExternalLink href={links.guildForm} label={t('footer.guildForm')} />
              </li>
              <li>
                <FeedbackLink>{t('feedback.nav')}</FeedbackLink>
              </li>
            </ul>
          </div>
          <div>
            <h2 className="footer-title">{t('footer.safety')}</h2>
            <ul>{pageLinks(SAFETY)}</ul>
          </div>
          <div>
            <h2 className="footer-title">{t('footer.legal')}</h2>
            <ul>
              {pageLinks(LEGAL)}
              <li>
                <button type="button" className="linklike" onClick={openCookieSettings}>
                  {t('footer.cookieSettings')}
                </button>
              </li>
            </ul>
          </div>
        </nav>
        <div className="footer-side">
          <h2 className="footer-title">{t('footer.follow')}</h2>
          <ul className="social">
            {social.map(({ name, href, Icon }) => (
              <li key={name}>
                <ExternalLink href={href} label={t('footer.socialLink', { site: siteName, network: name })}>
                  <Icon />
                </ExternalLink>
              </li>
            ))}
          </ul>
          <h2 className="footer-title">{t('footer.getApp')}</h2>
          <div className="apps">
            <ul className="stores">
              <li>
                <ExternalLink className="store" href={links.appStore} label={t('footer.appStore')} />
              </li>
              <li>
                <ExternalLink className="store" href={links.googlePlay} label={t('footer.googlePlay')} />
              </li>
              <li>
                <ExternalLink className="store" href={links.samsungStore} label={t('footer.samsung')} />
              </li>
              {links.apk && (
                <li>
                  <a className="store" href={links.apk} download>
                    {t('footer.apk')}
                  </a>
                </li>
              )}
            </ul>
            <img
              className="qr"
              src="/qr/download.svg"
              width={112}
              height={112}
              loading="lazy"
              decoding="async"
              alt={t('footer.qr', { site: siteName })}
            />
          </div>
        </div>
      </div>
      <p className="copyright">
        {t('footer.copyright', { year: new Date().getUTCFullYear(), site: siteName })}
      </p>
    </footer>
  );
}
