-- An application's own second migration, numbered above the ledger's first.
ALTER TABLE tickets ADD COLUMN owner VARCHAR(200);
