/**
 * A batch item keeps the second look its photo got (docs/pipeline.md "Second look"), as JSON
 * `{"views": n, "reason": "..."}`, like its uncertainty score: jobs are swept, the batch's list
 * stays. NULL for none, until done, and for items done before this migration.
 */
export default `
  ALTER TABLE batch_items ADD COLUMN second_look TEXT;
`
