/**
 * The static content pages: their slugs (URL segment and content folder) and layout.
 * Texts live in content/pages/{slug}/{locale}.md.
 */
export const STATIC_PAGES = [
  { slug: 'safety', layout: 'basic' },
  { slug: 'trust-and-safety', layout: 'basic' },
  { slug: 'anti-bullying', layout: 'basic' },
  { slug: 'child-assault-preventing', layout: 'basic' },
  { slug: 'child-safety-policy-agreement', layout: 'protocol' },
  { slug: 'parent-guide', layout: 'basic' },
  { slug: 'community-guidelines', layout: 'basic' },
  { slug: 'urgently-yellow-rule', layout: 'basic' },
  { slug: 'teaching', layout: 'none' },
  { slug: 'about', layout: 'basic' },
  { slug: 'contact', layout: 'basic' },
  { slug: 'safety-advocates-applicant', layout: 'basic' },
  { slug: 'user-protection', layout: 'basic' },
  { slug: 'terms', layout: 'protocol' },
  { slug: 'privacy', layout: 'protocol' },
  { slug: 'law-enforcement-guidelines', layout: 'protocol' },
  { slug: '2257-exemption-statement', layout: 'protocol' },
  { slug: 'refund-policy', layout: 'protocol' },
  { slug: 'privacy-notice', layout: 'protocol' },
  { slug: 'cookie-policy', layout: 'protocol' },
  { slug: 'users-choice', layout: 'protocol' },
] as const;

export type StaticPageSlug = (typeof STATIC_PAGES)[number]['slug'];
