/**
 * The one way tests wait: on a condition, checked every few milliseconds, never on a time. The
 * limit is a safety net that fails the test with what was waited for, not an assertion on speed.
 */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, limitMs = 120_000, everyMs = 25): Promise<void> {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > limitMs) throw new Error(`gave up waiting for: ${what}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}
