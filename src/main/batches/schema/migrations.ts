/** The batch tables' migrations, applied by `BatchStore` when it opens (names as shipped; see engine/store/migrations.ts). */
import type { Migration } from '../../engine/feature-tables'
import batches from './005-batches'
import batchResume from './007-batch-resume'
import batchInterrupted from './009-batch-interrupted'
import batchItemDevice from './010-batch-item-device'
import batchExpected from './012-batch-expected'
import batchItemUncertainty from './013-batch-item-uncertainty'
import batchTouchUp from './013-batch-touch-up'
import batchItemNumber from './016-batch-item-number'
import batchItemChecks from './019-batch-item-checks'
import batchItemSecondLook from './021-batch-item-second-look'

export const BATCH_MIGRATIONS: Migration[] = [
  { name: '005-batches', sql: batches },
  { name: '007-batch-resume', sql: batchResume },
  { name: '009-batch-interrupted', sql: batchInterrupted },
  { name: '010-batch-item-device', sql: batchItemDevice },
  { name: '012-batch-expected', sql: batchExpected },
  { name: '013-batch-item-uncertainty', sql: batchItemUncertainty },
  { name: '013-batch-touch-up', sql: batchTouchUp },
  { name: '016-batch-item-number', sql: batchItemNumber },
  { name: '019-batch-item-checks', sql: batchItemChecks },
  { name: '021-batch-item-second-look', sql: batchItemSecondLook }
]
