/**
 * Debian's Chromium driven by playwright-core, for the end-to-end tests. Skipped (with a
 * message) where /usr/bin/chromium is absent, except under CLIPDESK_REQUIRE_CHROMIUM=1 (CI),
 * where that fails them; `.ci/run` installs it.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'
import { requireTool } from '../helpers/require-tool'

export const CHROMIUM = '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)
export const SKIP_REASON = `SKIPPED: ${CHROMIUM} is not installed (apt-get install -y chromium; .ci/run does this)`
// CI (`.ci/run`) sets this: there, a missing Chromium fails these tests instead of skipping them.
requireTool(hasChromium, 'CLIPDESK_REQUIRE_CHROMIUM', SKIP_REASON)

/** Screenshots and other artifacts of the e2e tests (gitignored). */
export const ARTIFACTS = join(import.meta.dirname, '../../test-results/e2e')

/** A fresh profile every time; no network beyond loopback is ever asked for. */
export async function launchChromium(): Promise<BrowserContext> {
  mkdirSync(ARTIFACTS, { recursive: true })
  const profile = mkdtempSync(join(tmpdir(), 'clipdesk-chromium-'))
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync'
    ]
  })
}
