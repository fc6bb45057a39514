/**
 * Tests that need a system tool (Chromium, redis-server) skip with a message where it is not
 * installed, so that they run anywhere. CI must not pass by skipping them: `.ci/run` sets
 * `CLIPDESK_REQUIRE_<TOOL>=1`, and then a missing tool fails the test file that needs it.
 */
export function requireTool(present: boolean, variable: string, message: string): void {
  if (!present && process.env[variable] === '1')
    throw new Error(`${variable}=1 and the tool is missing: ${message.replace(/^SKIPPED: /, '')}`)
}
