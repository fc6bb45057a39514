/**
 * Each photo's number in its batch (`{n}` of a name template, docs/names.md): 1, 2, 3… in the
 * order the files were added, which is the order the form's preview shows. Files that are not
 * images are listed without a number (the preview and `clipdesk process` count photos only).
 * The number stays with the item, so a retried file keeps it and files added later continue
 * the count. Items of batches made before this are numbered the same way, by their order.
 */
export default `
  ALTER TABLE batch_items ADD COLUMN n INTEGER;
  UPDATE batch_items SET n = (
    SELECT count(*) FROM batch_items AS b
     WHERE b.batch_id = batch_items.batch_id AND b.not_image = 0 AND b.seq <= batch_items.seq
  ) WHERE not_image = 0;
  CREATE INDEX batch_items_number ON batch_items(batch_id, n);
`
