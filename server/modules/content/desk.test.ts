import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { addNode, createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { asStaff } from '../../testing/staff';
import { until } from '../../testing/wait';

// Static pages edited in the console through HTTP (issue 24 item 6): a content editor saves the
// German terms; every node shows it (with REDIS_URL, CI: a second node on the bus) with raw HTML
// as text, the other languages unchanged; taken back, the shipped text shows again; the audit
// log has both; only content editors may.
type Person = Awaited<ReturnType<typeof signedInPerson>>;
const kv = new MemoryKv();
let t: TestApp;
let other: FastifyInstance;
let editor: Person;
let reader: Person;

beforeAll(async () => {
  t = await createTestApp({ kv });
  other = process.env.REDIS_URL ? await addNode(t, { kv }) : t.app;
  editor = await signedInPerson(t, kv, 'pages-editor@example.com');
  await asStaff(t, editor, 'content');
  reader = await signedInPerson(t, kv, 'pages-reader@example.com');
}, 60_000);
afterAll(async () => {
  if (other !== t.app) await other.close();
  await t.close();
  await kv.close();
});

const call = (who: Person | null, method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: who?.headers ?? {}, ...(payload ? { payload } : {}) });
const page = async (app: FastifyInstance, path: string) => (await app.inject({ url: path })).body;

describe('static pages in the console', () => {
  it('shows a saved language on every node at once, raw HTML as text, and the shipped text once taken back', async () => {
    // Both nodes have rendered (and kept) the page before the edit.
    expect(await page(other, '/de/terms')).not.toContain('Neue Bedingungen');
    expect(await page(t.app, '/de/terms')).not.toContain('Neue Bedingungen');
    const saved = await call(editor, 'PUT', '/api/v1/staff/pages/terms/de', {
      title: 'Neue Bedingungen',
      description: 'Die Regeln',
      body_md: 'Gilt **ab heute**. <script>alert(1)</script>',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json<{ data: { texts: { locale: string; source: string }[] } }>().data.texts).toContainEqual(
      expect.objectContaining({ locale: 'de', source: 'edit' }),
    );
    await until('the other node shows it', async () => (await page(other, '/de/terms')).includes('Neue Bedingungen'));
    const html = await page(t.app, '/de/terms');
    expect(html).toContain('<strong>ab heute</strong>');
    expect(html).not.toContain('<script>alert(1)');
    // English is as shipped.
    expect(await page(t.app, '/en/terms')).not.toContain('Neue Bedingungen');
    const list = async (locale: string) =>
      (await call(editor, 'GET', `/api/v1/staff/pages?locale=${locale}`)).json<{
        data: { list: { slug: string; title: string; edited: string[] }[] };
      }>().data.list;
    expect((await list('en')).find((p) => p.slug === 'terms')?.edited).toEqual(['de']);
    // Titled in the reader's language: staff's German title, the shipped English one.
    expect((await list('de')).find((p) => p.slug === 'terms')?.title).toBe('Neue Bedingungen');
    expect((await list('en')).find((p) => p.slug === 'terms')?.title).not.toBe('Neue Bedingungen');

    expect((await call(editor, 'DELETE', '/api/v1/staff/pages/terms/de')).statusCode).toBe(200);
    await until('the other node shows the shipped text', async () =>
      !(await page(other, '/de/terms')).includes('Neue Bedingungen'),
    );
    expect((await call(editor, 'DELETE', '/api/v1/staff/pages/terms/de')).statusCode).toBe(404);
    const audit = await t.testDb.db.query<{ action: string; target: string }>(
      `SELECT action, target FROM staff_audit WHERE action LIKE 'page.%' ORDER BY id`,
    );
    expect(audit).toEqual([
      { action: 'page.edit', target: 'page:terms:de' },
      { action: 'page.revert', target: 'page:terms:de' },
    ]);
  });

  it('takes only known pages and a title, and only from content editors', async () => {
    const body = { title: 'X', description: '', body_md: '' };
    expect((await call(editor, 'PUT', '/api/v1/staff/pages/nope/de', body)).statusCode).toBe(400);
    expect((await call(editor, 'PUT', '/api/v1/staff/pages/terms/de', { ...body, title: ' ' })).statusCode).toBe(400);
    expect((await call(reader, 'PUT', '/api/v1/staff/pages/terms/de', body)).statusCode).toBe(403);
    expect((await call(reader, 'GET', '/api/v1/staff/pages')).statusCode).toBe(403);
  });
});
