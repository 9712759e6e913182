import type { PageProps } from '../lib/page';
import { CopyLinkButton } from '../ui/CopyLinkButton';
import type { StaticPageData } from './data';

export default function StaticPage({ data }: PageProps) {
  const page = data as StaticPageData;
  return (
    <article
      className={`doc doc--${page.slug}`}
      lang={page.translated ? undefined : 'en'}
      dir={page.translated ? undefined : 'ltr'}
    >
      <header className="doc__head">
        <h1 className="doc__title">{page.title}</h1>
        <CopyLinkButton />
      </header>
      {/* Our own Markdown from content/, rendered on the server. */}
      <div className="prose" data-prose="" dangerouslySetInnerHTML={{ __html: page.html }} />
    </article>
  );
}
