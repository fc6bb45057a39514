/**
 * Batches that the app stopped under (closed, crashed, `clipdesk serve` killed), and files
 * that are not images:
 * - `batches.interrupted_at`: set at the next start for a batch that still had files to do;
 *   its remaining files wait for the user's "Resume" (NULL: running normally).
 * - `batch_items.not_image`: 1 for a file of a dropped folder (or one the engine refused by
 *   its type) that is listed with the batch but never processed.
 * - `batch_items.planned`: JSON string[] of the output paths chosen for the item's current job
 *   before they are written, so that a crash between choosing and recording them gives the
 *   same names again at the next start instead of `-1` duplicates.
 */
export default `
  ALTER TABLE batches ADD COLUMN interrupted_at INTEGER;
  ALTER TABLE batch_items ADD COLUMN not_image INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE batch_items ADD COLUMN planned TEXT;
`
