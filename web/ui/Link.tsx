import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { localizedPath } from '../../common/routes';
import { useI18n } from '../i18n/i18n';
import { useRouter } from '../lib/router';

interface Props extends AnchorHTMLAttributes<HTMLAnchorElement> {
  /** A route path without language (`/safety`); the reader's language is added. */
  to: string;
}

/** An internal link: client-side navigation, preload on hover or focus. */
export function Link({ to, onClick, children, ...rest }: Props) {
  const { locale } = useI18n();
  const router = useRouter();
  const [path = '/', hash] = to.split('#');
  const href = localizedPath(locale, path) + (hash ? `#${hash}` : '');
  const handleClick = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    router.navigate(href);
  };
  const preload = () => router.preload(href);
  return (
    <a
      href={href}
      onClick={handleClick}
      onPointerEnter={preload}
      onFocus={preload}
      onTouchStart={preload}
      {...rest}
    >
      {children}
    </a>
  );
}

/** A link leaving the site: new tab, and says so to screen readers. */
export function ExternalLink({
  href,
  label,
  children,
  className,
}: {
  href: string;
  label: string;
  children?: React.ReactNode;
  className?: string;
}) {
  const { t } = useI18n();
  return (
    <a
      href={href}
      target="_blank"
      rel="noopener noreferrer"
      aria-label={t('a11y.opensNewTab', { label })}
      className={className}
    >
      {children ?? label}
    </a>
  );
}
