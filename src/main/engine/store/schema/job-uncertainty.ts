/**
 * The cutout's uncertainty score, 0 (sure) to 1 (check this), of a done job (docs/review.md):
 * written with the job's results. NULL for jobs done before this column, and while not done.
 */
export default `
  ALTER TABLE jobs ADD COLUMN uncertainty REAL;
`
