-- An application's own second migration.
ALTER TABLE tickets ADD COLUMN owner VARCHAR(200);
