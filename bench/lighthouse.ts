import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromium } from 'playwright-core';
import { CHROMIUM_PATH } from '../e2e/browser';
import { startSite } from './servers';

export interface LighthouseResult {
  path: string;
  runs: number;
  /** Worst LCP and lowest performance score of the runs (the other figures are the median run's). */
  worstLcpMs: number;
  worstPerformance: number;
  performance: number;
  accessibility: number;
  seo: number;
  bestPractices: number;
  lcpMs: number;
  fcpMs: number;
  cls: number;
  tbtMs: number;
  scriptKbGzip: number;
}

/** Leaves the Chromium at `port` signed in to `url`: its cookies, and local storage set from a page there. */
async function signIn(
  port: number,
  url: string,
  cookies: Record<string, string>,
  storage: Record<string, string>,
): Promise<void> {
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  try {
    const context = browser.contexts()[0];
    if (!context) throw new Error('no default browser context');
    await context.addCookies(Object.entries(cookies).map(([name, value]) => ({ name, value, url })));
    const page = await context.newPage();
    await page.goto(url);
    await page.evaluate((entries) => {
      for (const [k, v] of entries) localStorage.setItem(k, v);
    }, Object.entries(storage));
    await page.close();
  } finally {
    await browser.close();
  }
}

const score = (s: number | null | undefined) => Math.round((s ?? 0) * 100);

/**
 * Lighthouse's default (mobile, simulated slow 4G and 4x CPU) on pages of the built site, each
 * page `runs` times; the median run by performance score is reported.
 */
export async function lighthouseAudit(
  paths: string[],
  runs = 5,
  /**
   * A site already running instead of a fresh one; with `cookies` and `storage`, the browser is
   * signed in first (what a sign-in leaves: the session cookies and the stored login) and
   * Lighthouse keeps them.
   */
  on?: { url: string; cookies?: Record<string, string>; storage?: Record<string, string> },
): Promise<LighthouseResult[]> {
  const site = on ? { url: on.url, stop: async () => undefined } : await startSite(3903);
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM_PATH,
    chromeFlags: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  if (on?.cookies || on?.storage) await signIn(chrome.port, on.url, on.cookies ?? {}, on.storage ?? {});
  const results: LighthouseResult[] = [];
  try {
    for (const path of paths) {
      const samples: LighthouseResult[] = [];
      for (let i = 0; i < runs; i++) samples.push(await auditOnce(path));
      // Lighthouse's own advice for a noisy machine: report the median run (by performance
      // score), with the worst score and worst LCP beside it so a bad outlier stays visible.
      const worstLcpMs = Math.max(...samples.map((s) => s.lcpMs));
      const worstPerformance = Math.min(...samples.map((s) => s.performance));
      samples.sort((a, b) => a.performance - b.performance);
      const median = samples[Math.floor(samples.length / 2)] as LighthouseResult;
      results.push({ ...median, runs, worstLcpMs, worstPerformance });
    }
  } finally {
    chrome.kill();
    await site.stop();
  }
  return results;

  async function auditOnce(path: string): Promise<LighthouseResult> {
    {
      const run = await lighthouse(`${site.url}${path}`, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: ['performance', 'accessibility', 'seo', 'best-practices'],
        ...(on?.cookies || on?.storage ? { disableStorageReset: true } : {}),
      });
      if (!run) throw new Error('lighthouse returned nothing');
      const { categories, audits } = run.lhr;
      const summary = audits['resource-summary']?.details as
        { items?: { resourceType: string; transferSize: number }[] } | undefined;
      const script = summary?.items?.find((i) => i.resourceType === 'script')?.transferSize ?? 0;
      const result: LighthouseResult = {
        path,
        runs: 1,
        worstLcpMs: 0,
        worstPerformance: 0,
        performance: score(categories.performance?.score),
        accessibility: score(categories.accessibility?.score),
        seo: score(categories.seo?.score),
        bestPractices: score(categories['best-practices']?.score),
        lcpMs: Math.round(audits['largest-contentful-paint']?.numericValue ?? 0),
        fcpMs: Math.round(audits['first-contentful-paint']?.numericValue ?? 0),
        cls: Number((audits['cumulative-layout-shift']?.numericValue ?? 0).toFixed(3)),
        tbtMs: Math.round(audits['total-blocking-time']?.numericValue ?? 0),
        scriptKbGzip: Number((script / 1024).toFixed(1)),
      };
      const lcpEl = audits['largest-contentful-paint-element']?.details as
        | { items?: { items?: { node?: { snippet?: string; selector?: string; nodeLabel?: string } }[] }[] }
        | undefined;
      const lcpNode = lcpEl?.items?.[0]?.items?.[0]?.node;
      const snippet = lcpNode
        ? `${lcpNode.selector ?? ''} «${(lcpNode.nodeLabel ?? '').slice(0, 60)}»`
        : undefined;
      if (snippet) console.log(`  ${path}: LCP element ${snippet.slice(0, 120)}`);
      const failing = Object.values(audits).filter(
        (a) => a.score !== null && a.score < 1 && a.scoreDisplayMode === 'binary',
      );
      for (const a of failing) {
        const items = (a.details as { items?: { node?: { selector?: string } }[] } | undefined)?.items ?? [];
        const where = items
          .map((i) => i.node?.selector)
          .filter(Boolean)
          .slice(0, 3)
          .join(' | ');
        console.log(`  ${path}: ${a.id}: ${a.title}${where ? ` (${where})` : ''}`);
      }
      // LIGHTHOUSE_DETAIL=1: what shifted, and where the main thread's time went.
      if (process.env.LIGHTHOUSE_DETAIL === '1') {
        type Items = { items?: Record<string, unknown>[] } | undefined;
        const shifts = (audits['layout-shifts']?.details as Items)?.items ?? [];
        for (const i of shifts)
          console.log(
            `  ${path}: shift ${Number(i.score).toFixed(3)} ${JSON.stringify((i.node as { selector?: string } | undefined)?.selector ?? '')}`,
          );
        const work = (audits['mainthread-work-breakdown']?.details as Items)?.items ?? [];
        console.log(
          `  ${path}: main thread ${work.map((w) => `${String(w.groupLabel)} ${Math.round(Number(w.duration))} ms`).join(', ')}`,
        );
        const tasks = (audits['long-tasks']?.details as Items)?.items ?? [];
        for (const t of tasks.slice(0, 6))
          console.log(
            `  ${path}: long task ${Math.round(Number(t.duration))} ms at ${Math.round(Number(t.startTime))} ms ${String(t.url)}`,
          );
      }
      return result;
    }
  }
}
