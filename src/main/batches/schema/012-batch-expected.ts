/**
 * The number of files the app said it would add to a batch, counted before the first was sent
 * (`BatchCreateRequest.expected`): screens show it as the total while files are still being
 * added. NULL for batches made before, or without a count.
 */
export default `
  ALTER TABLE batches ADD COLUMN expected_files INTEGER;
`
