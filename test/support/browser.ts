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
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${String(e)}`));
  page.on('requestfailed', (r) => errors.push(`requestfailed: ${r.url()}`));
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
