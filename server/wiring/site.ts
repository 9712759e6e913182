import type { Config } from '../config';
import type { App, PageHandler } from '../http/server';
import type { Metrics } from '../http/metrics';
import { ContentStore } from '../modules/content';
import { liveAssets, loadAssets, type Assets } from '../ssr/assets';
import { registerPages } from '../ssr/pages';
import { payAppPages } from '../ssr/payapp';
import { registerSeo } from '../ssr/seo';
import type { AppDeps } from './infra';
import type { Services } from './services';

/** What the pages are made from, read from disk: the client's build manifest and the content pages. */
export interface SiteFiles {
  assets: Assets;
  content: ContentStore;
}

export function loadSiteFiles(deps: AppDeps): SiteFiles {
  const { config } = deps;
  return {
    content: deps.content ?? new ContentStore(),
    assets: deps.assets ?? (config.isDev ? liveAssets() : loadAssets()),
  };
}

/**
 * The server-rendered site: robots and sitemaps, the payment app's pages, then every other GET is
 * a page. Answers the page handler (it also answers URLs Fastify cannot decode).
 */
export async function registerSite(
  app: App,
  deps: { config: Config; files: SiteFiles; services: Services; metrics: Metrics },
): Promise<PageHandler> {
  const { config, metrics } = deps;
  const { assets, content } = deps.files;
  const { news, auth, users, live, discovery, search } = deps.services;
  const { leaderboards, videos, festival, audio } = deps.services;
  registerSeo(app, { config, news });
  await app.register(payAppPages({ config, assets }));
  return registerPages(app, {
    config,
    assets,
    content,
    news,
    auth,
    users,
    live,
    discovery,
    search,
    leaderboards,
    videos,
    festival,
    audio,
    metrics,
  });
}
