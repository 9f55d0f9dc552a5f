-- The idempotency ledger, migration 1.0.0.0.2, for MariaDB and MySQL: adds the columns where an
-- operator's settlement of a call is recorded (who, when and why), all nullable, to the table tool_audit.
-- A released migration never changes: a change to the table is a new migration beside it.
ALTER TABLE tool_audit
	ADD COLUMN settled_by    VARCHAR(255),
	ADD COLUMN settled_at    DATETIME(6),
	ADD COLUMN settle_reason TEXT;
