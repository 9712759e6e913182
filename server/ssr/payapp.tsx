import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { renderToString } from 'react-dom/server';
import { htmlLang, isRtl } from '../../common/locales';
import { CASHOUT_APP_PATH, PAY_APP_PATH } from '../../common/money';
import { CATALOGUES } from '../../web/i18n/catalogues';
import { PayApp } from '../../web/payapp/PayApp';
import { ORDER_ID, PAYAPP_STATE_ID, type PayAppState } from '../../web/payapp/state';
import type { Config } from '../config';
import { CompressedBody, pickEncoding } from '../http/compress';
import { requestLocale } from '../http/locale';
import { translate } from '../i18n';
import type { Assets } from './assets';
import { escapeHtml } from '../../common/html';
import { jsonForScript } from './document';

/** The payment app's HTML document: its own stylesheet and script, the screen rendered inside. */
function documentFor(state: PayAppState, assets: Assets): string {
  const { locale } = state;
  const title = translate(locale, state.screen === 'recharge' ? 'pay.title' : 'cashout.title');
  const app = renderToString(<PayApp state={state} messages={CATALOGUES[locale]} />);
  const pay = assets.payApp;
  const preloads = pay
    .preloadsFor(locale)
    .map((href) => `<link rel="modulepreload" href="${escapeHtml(href)}">`)
    .join('');
  return (
    `<!doctype html><html lang="${htmlLang(locale)}" dir="${isRtl(locale) ? 'rtl' : 'ltr'}"><head>` +
    '<meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">' +
    `<title>${escapeHtml(`${title} | ${state.siteName}`)}</title>` +
    '<meta name="robots" content="noindex">' +
    '<meta name="theme-color" content="#14121f">' +
    '<link rel="icon" href="/favicon.svg" type="image/svg+xml">' +
    `<link rel="stylesheet" href="${escapeHtml(pay.cssHref)}">` +
    preloads +
    `<script type="module" src="${escapeHtml(pay.entry)}"></script>` +
    `</head><body><div id="root">${app}</div>` +
    `<script id="${PAYAPP_STATE_ID}" type="application/json">${jsonForScript(state)}</script></body></html>`
  );
}

/**
 * The payment app's two screens (spec §2): recharge at /app/pay/dist/index.html (where the
 * payment provider sends the buyer back, `?order=…`, `&cancelled=1`) and cash out at
 * /app/neww/dist/index.html. The language comes from `?locale=`, the `lang` cookie or
 * Accept-Language. Rendered per request: the screens are the signed-in user's.
 */
export function payAppPages(deps: { config: Config; assets: Assets }): FastifyPluginAsync {
  const page =
    (screen: PayAppState['screen']) =>
    async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const query = req.query as Record<string, unknown>;
      const order =
        screen === 'recharge' && typeof query.order === 'string' && ORDER_ID.test(query.order)
          ? query.order
          : null;
      const state: PayAppState = {
        screen,
        locale: requestLocale(req),
        siteName: deps.config.SITE_NAME,
        order,
        cancelled: order !== null && query.cancelled === '1',
      };
      const encoding = pickEncoding(req.headers['accept-encoding']);
      if (encoding !== 'identity') void reply.header('content-encoding', encoding);
      return reply
        .header('cache-control', 'no-store')
        .header('vary', 'Accept-Encoding, Accept-Language, Cookie')
        .type('text/html; charset=utf-8')
        .send(new CompressedBody(documentFor(state, deps.assets)).get(encoding));
    };
  return async (app) => {
    app.get(PAY_APP_PATH, { schema: { hide: true } }, page('recharge'));
    app.get(CASHOUT_APP_PATH, { schema: { hide: true } }, page('cashout'));
  };
}
