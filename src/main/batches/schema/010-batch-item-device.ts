/**
 * A batch item keeps the model and the device (cpu, cuda, directml, coreml, webgpu: after any
 * fallback) of the job that made its results, like its warnings and outputs: jobs are swept
 * after the retention time, the batch and its list stay. NULL until the item is done, and for
 * items done before this migration.
 */
export default `
  ALTER TABLE batch_items ADD COLUMN model TEXT;
  ALTER TABLE batch_items ADD COLUMN device TEXT;
`
