/**
 * The renderer's Content-Security-Policy, one definition for the Electron window and for the
 * browser app served by `clipdesk serve`: only its own files, no inline scripts, no framing.
 * `extraImageSources` lets the Electron window show results from its own protocol.
 */
export function rendererCsp(extraImageSources: string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    ['img-src', "'self'", 'data:', 'blob:', ...extraImageSources].join(' '),
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join('; ')
}
