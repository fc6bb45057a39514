/** A user preset's display name ("Shop Beige"), beside the short name it is used by; NULL: the short name. */
export default `
  ALTER TABLE presets ADD COLUMN title TEXT;
`
