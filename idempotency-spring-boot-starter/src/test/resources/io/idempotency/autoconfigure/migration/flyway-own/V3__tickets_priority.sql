-- An application's own third migration.
ALTER TABLE tickets ADD COLUMN priority INTEGER;
