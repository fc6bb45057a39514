import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

/**
 * The default data folder, the same one Electron's `userData` uses for the app named
 * Clipdesk, so the app and the headless commands share jobs, keys and settings.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.CLIPDESK_DATA_DIR) return env.CLIPDESK_DATA_DIR
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Clipdesk')
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Clipdesk')
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Clipdesk')
}

/**
 * The default destination of batches: a visible folder the user finds again (`Clipdesk` in
 * their Pictures folder), never the hidden data folder. `pictures`: the desktop's own Pictures
 * folder when the host knows it (Electron's `app.getPath('pictures')`); otherwise `~/Pictures`,
 * else `~/Documents` when it exists, else the home folder.
 */
export function defaultOutputDir(pictures?: string, home: string = homedir()): string {
  if (pictures) return join(pictures, 'Clipdesk')
  for (const dir of ['Pictures', 'Documents']) if (existsSync(join(home, dir))) return join(home, dir, 'Clipdesk')
  return join(home, 'Clipdesk')
}
