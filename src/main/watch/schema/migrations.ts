/** The watch tables' migrations, applied by `WatchStore` when it opens (names as shipped; see engine/store/migrations.ts). */
import type { Migration } from '../../engine/feature-tables'
import watch from './004-watch'
import noLease from './011-watch-no-lease'
import fileUncertainty from './013-watch-file-uncertainty'
import fileTouchUp from './014-watch-file-touch-up'

export const WATCH_MIGRATIONS: Migration[] = [
  { name: '004-watch', sql: watch },
  { name: '011-watch-no-lease', sql: noLease },
  { name: '013-watch-file-uncertainty', sql: fileUncertainty },
  { name: '014-watch-file-touch-up', sql: fileTouchUp }
]
