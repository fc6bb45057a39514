/**
 * "Open with…" for a result: the system's own application chooser where it has one (Windows'
 * "Open with" dialog), else a file dialog to pick the application (macOS: an `.app` bundle,
 * opened with `open -a`; Linux: an application's `.desktop` entry, launched by `gio launch`, or a
 * program, given the file). "Show in folder" is Electron's `shell.showItemInFolder`.
 *
 * Plain functions over what they need (no Electron import), so that each platform's path is
 * tested here where Electron cannot run; `index.ts` hands in Electron's dialog.
 */
import { spawn as nodeSpawn } from 'node:child_process'

export interface OpenWithDeps {
  platform: NodeJS.Platform
  /** Asks the user for an application; null when they cancel. */
  pickApplication(): Promise<string | null>
  /** Starts a program detached from the app; resolves '' once started, or why it could not start. */
  launch(command: string, args: string[]): Promise<string>
}

/** Opens `file` with an application the user chooses; resolves '' or why it could not. */
export async function openWith(file: string, deps: OpenWithDeps): Promise<string> {
  if (deps.platform === 'win32') return deps.launch('rundll32.exe', ['shell32.dll,OpenAs_RunDLL', file])
  const app = await deps.pickApplication()
  if (!app) return 'No application was chosen.'
  if (deps.platform === 'darwin') return deps.launch('open', ['-a', app, file])
  if (app.endsWith('.desktop')) return deps.launch('gio', ['launch', app, file])
  return deps.launch(app, [file])
}

/** Where the application dialog starts and what it lists, per platform. */
export function applicationDialog(platform: NodeJS.Platform): {
  title: string
  defaultPath: string
  filters: { name: string; extensions: string[] }[]
} {
  if (platform === 'darwin')
    return { title: 'Open with', defaultPath: '/Applications', filters: [{ name: 'Applications', extensions: ['app'] }] }
  return {
    title: 'Open with',
    defaultPath: '/usr/share/applications',
    filters: [
      { name: 'Applications', extensions: ['desktop'] },
      { name: 'Programs', extensions: ['*'] }
    ]
  }
}

/** Starts a program detached (it outlives the app) with its output ignored; '' once it started. */
export function launchDetached(command: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const child = nodeSpawn(command, args, { detached: true, stdio: 'ignore' })
    child.once('error', (err) => resolve(`${command} could not be started: ${err.message}`))
    child.once('spawn', () => {
      child.unref()
      resolve('')
    })
  })
}
