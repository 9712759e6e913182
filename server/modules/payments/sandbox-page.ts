import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { z } from 'zod';
import { htmlLang, isRtl, localeFromSegment, type Locale } from '../../../common/locales';
import { AppError } from '../../../common/errors';
import { translate } from '../../i18n';
import { escapeHtml } from '../../../common/html';
import { SANDBOX_DECLINES, type SandboxProvider, type SandboxSession } from './sandbox';

const STYLE = `body{margin:0;font:16px/1.5 system-ui,sans-serif;background:#f4f4f7;color:#1b1b22}
main{max-width:420px;margin:48px auto;padding:24px;background:#fff;border-radius:12px;box-shadow:0 2px 12px #0002}
h1{font-size:20px;margin:0 0 4px}.amount{font-size:32px;font-weight:700;margin:8px 0 16px}
.notice{background:#fff4d6;border-radius:8px;padding:8px 12px;font-size:14px}
.error{background:#fde2e2;color:#8a1111;border-radius:8px;padding:8px 12px}
label{display:block;margin:16px 0 4px;font-weight:600}input{width:100%;box-sizing:border-box;font:inherit;padding:10px;border:1px solid #999;border-radius:8px}
button{width:100%;margin-top:16px;padding:12px;font:inherit;font-weight:700;border:0;border-radius:8px;background:#5b3df5;color:#fff;cursor:pointer}
button.link{background:none;color:#5b3df5;font-weight:400}small{color:#555}`;

function money(locale: Locale, cents: number, currency: string): string {
  return new Intl.NumberFormat(htmlLang(locale), {
    style: 'currency',
    currency: currency.toUpperCase(),
  }).format(cents / 100);
}

function page(locale: Locale, s: SandboxSession | null, error: string | null): string {
  const t = (key: Parameters<typeof translate>[1], values?: Record<string, string | number>) =>
    escapeHtml(translate(locale, key, values));
  const body = !s
    ? `<h1>${t('sandbox.title')}</h1><p class="error" role="alert">${t('sandbox.expired')}</p>`
    : `<h1>${t('sandbox.title')}</h1><p>${escapeHtml(s.description)}</p>
<p class="amount">${escapeHtml(money(locale, s.amountCents, s.currency))}</p>
<p class="notice">${t('sandbox.notice')}</p>
${error ? `<p class="error" role="alert">${error}</p>` : ''}
<form method="post" action="/sandbox-pay/${s.ref}/pay">
<label for="card">${t('sandbox.card')}</label>
<input id="card" name="card" dir="ltr" inputmode="numeric" autocomplete="cc-number" value="4242 4242 4242 4242" required>
<small>${t('sandbox.cards')}</small>
<button type="submit">${t('sandbox.pay', { amount: money(locale, s.amountCents, s.currency) })}</button>
</form>
<form method="post" action="/sandbox-pay/${s.ref}/cancel"><button class="link" type="submit">${t('sandbox.cancel')}</button></form>`;
  return `<!doctype html><html lang="${htmlLang(locale)}" dir="${isRtl(locale) ? 'rtl' : 'ltr'}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${t('sandbox.title')}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

function send(reply: FastifyReply, status: number, html: string) {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(html);
}

const params = z.object({ ref: z.string().max(64) });

/**
 * The sandbox provider's hosted checkout (what Stripe's page is for Stripe): the buyer enters a
 * test card and pays or cancels, and is sent back to the payment app. Not under /api: a plain
 * HTML form, as on a real provider's site.
 */
export function sandboxPage(sandbox: SandboxProvider): FastifyPluginAsync {
  return async (app) => {
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 4096 },
      (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(String(body))));
      },
    );
    const localeOf = (s: SandboxSession | null) => (s && localeFromSegment(s.locale)) ?? 'en';

    app.get('/sandbox-pay/:ref', async (req, reply) => {
      const s = await sandbox.session(params.parse(req.params).ref);
      if (s?.status === 'succeeded') return reply.redirect(s.returnUrl, 303);
      return send(reply, s ? 200 : 410, page(localeOf(s), s, null));
    });

    app.post('/sandbox-pay/:ref/pay', async (req, reply) => {
      const { ref } = params.parse(req.params);
      const card = z.object({ card: z.string().max(40) }).safeParse(req.body);
      const s = await sandbox.session(ref);
      if (!s) return send(reply, 410, page('en', null, null));
      const locale = localeOf(s);
      if (!card.success)
        return send(reply, 400, page(locale, s, escapeHtml(translate(locale, 'sandbox.badCard'))));
      try {
        const r = await sandbox.pay(ref, card.data.card);
        if (r.outcome === 'succeeded') return await reply.redirect(r.session.returnUrl, 303);
        const digits = card.data.card.replace(/[\s-]/g, '');
        const key =
          SANDBOX_DECLINES[digits] === 'insufficient_funds' ? 'sandbox.insufficient' : 'sandbox.declined';
        return await send(reply, 402, page(locale, r.session, escapeHtml(translate(locale, key))));
      } catch (err) {
        if (err instanceof AppError && err.errorName === 'validation_failed')
          return send(reply, 400, page(locale, s, escapeHtml(translate(locale, 'sandbox.badCard'))));
        throw err;
      }
    });

    app.post('/sandbox-pay/:ref/cancel', async (req, reply) => {
      const s = await sandbox.session(params.parse(req.params).ref);
      if (!s) return send(reply, 410, page('en', null, null));
      return reply.redirect(s.cancelUrl, 303);
    });
  };
}
