// The cookie banner lives in web/ui/ now; server/ssr/pages.tsx still imports the consent cookie's
// name from here, and server/ is another part of issue 17's to change.
export { CONSENT_COOKIE } from '../ui/CookieBanner';
