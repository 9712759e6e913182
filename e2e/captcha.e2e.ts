import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { startE2E, waitReady, watchErrors, type E2E } from './fixture';

// The captcha as a person meets it in the login card: a picture, or, for someone who cannot see
// it, digits spoken in the page's language that they type as they hear them (issue 16).
let e2e: E2E;
const kv = new MemoryKv();

beforeAll(async () => {
  e2e = await startE2E({ kv });
});
afterAll(async () => {
  await e2e.close();
  await kv.close();
});

async function germanSignUp(
  width: number,
): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const context = await e2e.browser.newContext({ viewport: { width, height: 900 } });
  await context.addCookies([{ name: 'cookie_consent', value: 'all', url: e2e.base }]);
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${e2e.base}/de`);
  await waitReady(page);
  await page.getByRole('link', { name: 'Anmelden' }).click();
  const dialog = page.getByRole('dialog', { name: 'Anmelden' });
  await dialog.getByRole('button', { name: 'Registrieren' }).click();
  await dialog.getByRole('heading', { name: 'Erstelle dein Konto' }).waitFor();
  return { page, errors, close: () => context.close() };
}

describe('the captcha in the login card', () => {
  it('shows a picture, and the spoken digits instead; typing what is heard creates the account', async () => {
    const { page, errors, close } = await germanSignUp(390);
    const dialog = page.getByRole('dialog', { name: 'Anmelden' });
    const picture = dialog.getByRole('img', { name: 'Bestätigungsbild: Gib die angezeigten Zeichen ein' });
    await picture.waitFor();
    await page.waitForFunction(
      () => (document.querySelector<HTMLImageElement>('.captcha__image img')?.naturalWidth ?? 0) === 200,
    );

    await dialog.getByRole('textbox', { name: 'E-Mail' }).fill('hoerend@example.com');
    await dialog.getByLabel('Passwort', { exact: true }).fill('hoeren 123');
    await dialog.getByLabel('Passwort bestätigen').fill('hoeren 123');
    const audioResponse = page.waitForResponse((r) => /\/api\/v1\/auth\/captcha\/[^/]+\/audio/.test(r.url()));
    await dialog.getByRole('button', { name: 'Stattdessen einen Code anhören' }).click();
    const response = await audioResponse;
    expect([response.status(), response.headers()['content-type']]).toEqual([200, 'audio/wav']);
    expect(new URL(response.url()).searchParams.get('locale')).toBe('de');
    await dialog.getByText('Gib die sechs Ziffern ein, die du hörst').waitFor();
    // The player has a name, controls, and plays (started by the click).
    const player = dialog.getByLabel('Gesprochener Bestätigungscode');
    expect(await player.evaluate((a: HTMLAudioElement) => a.controls)).toBe(true);
    await page.waitForFunction(() => {
      const a = document.querySelector<HTMLAudioElement>('.captcha__audio audio');
      return a !== null && a.duration > 4 && a.currentTime > 0.3;
    });
    // What they heard: the captcha's answer is now the spoken digits.
    const id = /\/captcha\/([^/]+)\/audio/.exec(response.url())?.[1] ?? '';
    const digits = (await kv.get(`captcha:${id}`)) ?? '';
    expect(digits).toMatch(/^[0-9]{6}$/);
    await dialog.getByLabel('Bestätigungscode', { exact: true }).fill(digits.split('').join(' '));
    await dialog.getByRole('button', { name: 'Konto erstellen' }).click();
    await dialog.getByRole('heading', { name: 'Sieh in deinem Postfach nach' }).waitFor();
    expect(errors).toEqual([]);
    await close();
  });
});
