import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app';

// The payment app's two documents (spec §2): their language, direction and the return from the
// provider's checkout.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers });
const state = (body: string) =>
  JSON.parse(/<script id="__payapp" type="application\/json">(.*?)<\/script>/.exec(body)?.[1] ?? 'null') as {
    screen: string;
    locale: string;
    order: string | null;
    cancelled: boolean;
  };

describe('the payment app', () => {
  it('serves the recharge and cash-out screens with their own bundle, never cached', async () => {
    for (const [url, screen, title] of [
      ['/app/pay/dist/index.html', 'recharge', 'Recharge'],
      ['/app/neww/dist/index.html', 'cashout', 'Cash out'],
    ] as const) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toContain(`<title>${title} | Beamly</title>`);
      expect(res.body).toMatch(/<script type="module" src="\/assets\/payapp-[A-Z0-9]+\.js"><\/script>/);
      expect(res.body).toMatch(/<link rel="stylesheet" href="\/assets\/payapp-[A-Z0-9]+\.css">/);
      expect(res.body).toContain('<meta name="robots" content="noindex">');
      expect(state(res.body).screen).toBe(screen);
    }
  });

  it('speaks ?locale=, then the lang cookie, then Accept-Language; Arabic right to left', async () => {
    expect((await get('/app/pay/dist/index.html?locale=ar')).body).toContain('<html lang="ar" dir="rtl">');
    expect((await get('/app/neww/dist/index.html', { cookie: 'lang=de' })).body).toContain(
      '<html lang="de" dir="ltr">',
    );
    const zh = await get('/app/neww/dist/index.html', { 'accept-language': 'zh-CN,zh;q=0.9' });
    expect(zh.body).toContain('<html lang="zh-CN" dir="ltr">');
    expect(state(zh.body).locale).toBe('zh');
  });

  it('takes the order back from the checkout, and only a well-formed one', async () => {
    const back = state(
      (await get('/app/pay/dist/index.html?order=po_abcdefghijklmnopqrstuvwx&cancelled=1')).body,
    );
    expect(back).toMatchObject({ screen: 'recharge', order: 'po_abcdefghijklmnopqrstuvwx', cancelled: true });
    const junk = state((await get('/app/pay/dist/index.html?order=%3Cscript%3E')).body);
    expect(junk).toMatchObject({ order: null, cancelled: false });
  });
});
