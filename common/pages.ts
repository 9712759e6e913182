/**
 * The static content pages: their slugs (URL segment and content folder) and layout.
 * Texts live in content/pages/{slug}/{locale}.md.
 */
export const STATIC_PAGES = [
  { slug: 'safety', layout: 'basic', footer: false },
  { slug: 'trust-and-safety', layout: 'basic', footer: true },
  { slug: 'anti-bullying', layout: 'basic', footer: true },
  { slug: 'child-assault-preventing', layout: 'basic', footer: true },
  { slug: 'child-safety-policy-agreement', layout: 'protocol', footer: true },
  { slug: 'parent-guide', layout: 'basic', footer: true },
  { slug: 'community-guidelines', layout: 'basic', footer: true },
  { slug: 'urgently-yellow-rule', layout: 'basic', footer: false },
  { slug: 'teaching', layout: 'none', footer: false },
  { slug: 'about', layout: 'basic', footer: true },
  { slug: 'contact', layout: 'basic', footer: true },
  { slug: 'safety-advocates-applicant', layout: 'basic', footer: true },
  { slug: 'user-protection', layout: 'basic', footer: true },
  { slug: 'terms', layout: 'protocol', footer: true },
  { slug: 'privacy', layout: 'protocol', footer: true },
  { slug: 'law-enforcement-guidelines', layout: 'protocol', footer: true },
  { slug: '2257-exemption-statement', layout: 'protocol', footer: true },
  { slug: 'refund-policy', layout: 'protocol', footer: true },
  { slug: 'privacy-notice', layout: 'protocol', footer: true },
  { slug: 'cookie-policy', layout: 'protocol', footer: true },
  { slug: 'users-choice', layout: 'protocol', footer: true },
] as const;

export type StaticPageSlug = (typeof STATIC_PAGES)[number]['slug'];

/** Footer order follows the spec's list (about … user's choice). */
export const FOOTER_PAGES: readonly StaticPageSlug[] = [
  'about',
  'contact',
  'trust-and-safety',
  'safety-advocates-applicant',
  'user-protection',
  'anti-bullying',
  'child-assault-preventing',
  'child-safety-policy-agreement',
  'parent-guide',
  'community-guidelines',
  'terms',
  'privacy',
  'law-enforcement-guidelines',
  '2257-exemption-statement',
  'refund-policy',
  'privacy-notice',
  'cookie-policy',
  'users-choice',
];
