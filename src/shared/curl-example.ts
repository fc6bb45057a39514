/**
 * Commands handed out to paste: the API screen's "Try it with curl" (`curlExample`) and the
 * preset editor's "use these settings in the command line or the API" (`settingsCommands`).
 *
 * The API screen's "Try it with curl": a command that works when pasted into a terminal (bash
 * or zsh) as it is. It uploads `photo.jpg` from the current folder, takes the job id from the
 * answer, asks for the status once a second until the job has ended, and downloads the result
 * as `photo.cut-out.png`. The key is the one chosen from the list: its secret when this window
 * knows it (shown once, when the key was made here), else the terminal asks for it (never
 * echoed). One command line (continued with `\`): a paste is read whole before anything runs,
 * so the question for the key reads from the keyboard, not from the pasted lines.
 * No Node, no DOM: tested by running its output against a real server (test/curl-example.test.ts).
 */

export interface CurlKey {
  /** The key's name and the first characters of its secret, to say which key to paste. */
  name: string | null
  prefix: string
  /** The whole secret, when known in this window. */
  secret: string | null
}

/** A shell word in single quotes (a secret or a prompt may hold anything). */
const quoted = (text: string): string => `'${text.split("'").join(`'\\''`)}'`

/** Reads `"field":"value"` out of a one-line JSON answer with sed (no jq needed). */
const field = (name: string): string => `sed -n 's/.*"${name}":"\\([^"]*\\)".*/\\1/p'`

export function curlExample(base: string, key: CurlKey): string {
  const setKey = key.secret
    ? `CLIPDESK_KEY=${quoted(key.secret)}`
    : `printf '%s' ${quoted(`Paste the key ${key.name ? `"${key.name}" ` : ''}(${key.prefix}…) and press Enter: `)} && read -rs CLIPDESK_KEY && echo`
  return [
    `${setKey} && \\`,
    `UPLOAD=$(curl -s -H "X-API-Key: $CLIPDESK_KEY" -F file=@photo.jpg -F output_format=png ${quoted(`${base}/api/v1/upload`)}) && \\`,
    // A refusal (a wrong key, no photo.jpg) is shown as the API said it, and nothing else runs.
    `JOB=$(echo "$UPLOAD" | ${field('job_id')}) && { [ -n "$JOB" ] || { echo "$UPLOAD"; false; }; } && \\`,
    `echo "job: $JOB" && \\`,
    `while STATUS=$(curl -s -H "X-API-Key: $CLIPDESK_KEY" ${quoted(`${base}/api/v1/status?job_id=`)}"$JOB") && case "$STATUS" in *'"state":"pending"'*) true ;; *) false ;; esac; do sleep 1; done && \\`,
    `echo "$STATUS" && \\`,
    `curl -s -o photo.cut-out.png "$(echo "$STATUS" | ${field('final_url')})" && echo 'saved: photo.cut-out.png'`
  ].join('\n')
}

/**
 * The address of the local API as a command pasted on this machine reaches it: the listener's
 * own address when it runs, the page's origin in the browser app, else the port in the settings.
 */
export function apiBase(listenerUrl: string | null | undefined, port: number | undefined, browserOrigin: string | null): string {
  return listenerUrl ?? browserOrigin ?? `http://127.0.0.1:${port ?? 7878}`
}

/**
 * A parameter set as the command line and the API take it, each a command that works when
 * pasted into bash or zsh: the set in single quotes (it holds `;`, which ends a shell command,
 * and `#`), and given to curl with `--form-string`, since `-F` reads what follows a `;` as the
 * part's type or file name and drops it. An empty set (every setting at its default) is left out.
 */
export function settingsCommands(params: string, base: string): { cli: string; curl: string } {
  const set = params.trim()
  return {
    cli: `npx clipdesk process photos --out cutouts${set ? ` --params ${quoted(set)}` : ''}`,
    curl: [
      `curl -sS -H "X-API-Key: $CLIPDESK_KEY" -F file=@photo.jpg${set ? ` --form-string ${quoted(`params=${set}`)}` : ''} \\`,
      `  ${quoted(`${base}/api/v1/upload`)}`
    ].join('\n')
  }
}
