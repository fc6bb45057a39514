/**
 * A batch item keeps its cutout's uncertainty score, 0 (sure) to 1 (check this; docs/review.md),
 * like its model and device: jobs are swept after the retention time, the batch's list and its
 * "to check" files stay. NULL until the item is done, and for items done before this migration.
 */
export default `
  ALTER TABLE batch_items ADD COLUMN uncertainty REAL;
`
