/**
 * Lines the CLI prints. Anything it shows may hold a name or a message from outside (a file
 * name, a batch or key name, an engine error naming a file): each line goes out with its control
 * characters and bidi marks escaped (`src/shared/text.ts`), so that a name can neither drive
 * the terminal nor forge a line. `--json` output is JSON-escaped already. Tabs are kept: the
 * listings use them between columns (a column's own text is escaped whole with `field`).
 */
import { escapeControls } from '../../shared/text'

const shown = (line: string): string => line.split('\t').map(escapeControls).join('\t')

/** One column of a tab-separated listing: every control character escaped, its tabs too. */
export const field = escapeControls

/** Prints lines on stdout, each escaped. */
export function say(...lines: string[]): void {
  for (const line of lines) console.log(shown(line))
}

/** Prints lines on stderr, each escaped. */
export function complain(...lines: string[]): void {
  for (const line of lines) console.error(shown(line))
}
