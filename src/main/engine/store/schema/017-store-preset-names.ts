/**
 * The store presets (`amazon`, `ebay`, `etsy`, `shopify`, `google`) became built-in: a user
 * preset of one of those names is renamed `<name>-own` (`-own-2` where that is taken too), its
 * display name kept, and the rename recorded so that it is said once (`PresetStore.takeRenames`).
 */
const NAMES = "('amazon', 'ebay', 'etsy', 'shopify', 'google')"

export default `
  CREATE TABLE preset_renames (
    old_name TEXT PRIMARY KEY,
    new_name TEXT NOT NULL,
    told     INTEGER NOT NULL DEFAULT 0
  );
  INSERT INTO preset_renames (old_name, new_name)
    SELECT name, CASE WHEN EXISTS (SELECT 1 FROM presets q WHERE q.name = p.name || '-own') THEN p.name || '-own-2' ELSE p.name || '-own' END
    FROM presets p WHERE p.name IN ${NAMES};
  UPDATE presets SET title = COALESCE(title, name), name = (SELECT new_name FROM preset_renames r WHERE r.old_name = presets.name)
    WHERE name IN ${NAMES};
`
