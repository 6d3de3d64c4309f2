/**
 * Opens a local page in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core,
 * never a downloaded browser) and collects console errors, for the HTML report and review tests.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';

/** The Chromium binary: `$COREB_CHROMIUM` or Debian's. */
export const chromiumPath: string = process.env.COREB_CHROMIUM ?? '/usr/bin/chromium';

/** True when the browser can run; with COREB_REQUIRE_TOOLCHAINS=1 a missing browser is an error. */
export function chromiumAvailable(): boolean {
  if (existsSync(chromiumPath)) return true;
  if (process.env.COREB_REQUIRE_TOOLCHAINS === '1') throw new Error(`chromium not found at ${chromiumPath} (apt-get install chromium)`);
  return false;
}

/** An open page and what the browser reported while loading it. */
export interface OpenedPage {
  page: Page;
  /** Console messages of type error, page errors and failed requests. */
  errors: string[];
  close(): Promise<void>;
}

/** One headless Chromium for many pages: each {@link BrowserSession.open} is a new tab with its own error list. */
export interface BrowserSession {
  open(file: string): Promise<OpenedPage>;
  close(): Promise<void>;
}

/**
 * Starts one headless Chromium (a fresh profile) whose tabs open local pages: a test that checks
 * many pages pays for one browser start, not one per page.
 */
export async function startChromium(viewport = { width: 1280, height: 900 }): Promise<BrowserSession> {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'coreb-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath, headless: true, viewport, args: CHROMIUM_ARGS });
  return {
    async open(file) {
      const page = await context.newPage();
      const errors = watchErrors(page);
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      return { page, errors, close: () => page.close() };
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Collects a page's console errors, page errors and failed requests. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${String(e)}`));
  page.on('requestfailed', (r) => errors.push(`requestfailed: ${r.url()}`));
  return errors;
}

/** Opens `file` (a local HTML file) in a fresh headless Chromium profile. */
export async function openInChromium(file: string, viewport = { width: 1280, height: 900 }): Promise<OpenedPage> {
  return openUrlInChromium(pathToFileURL(file).href, viewport);
}

/** Opens `url` (a file: URL or a loopback server's page) in a fresh headless Chromium profile. */
export async function openUrlInChromium(url: string, viewport = { width: 1280, height: 900 }): Promise<OpenedPage> {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'coreb-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport,
    args: CHROMIUM_ARGS,
  });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(url, { waitUntil: 'load' });
  return {
    page,
    errors,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
