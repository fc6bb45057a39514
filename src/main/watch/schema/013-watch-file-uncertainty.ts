/**
 * A watched file keeps its cutout's uncertainty score, 0 (sure) to 1 (check this; docs/review.md),
 * once done: the folder lists the files to check after the engine has swept their jobs. NULL
 * until done, for a new version of the file, and for files done before this migration.
 */
export default `
  ALTER TABLE watch_files ADD COLUMN uncertainty REAL;
`
