-- The idempotency ledger, migration 1.0.0.0.4, for MariaDB and MySQL: a person's approval before the effect. Adds
-- to the table tool_audit the columns where it is recorded (why the tool asked for it, and who decided, when and
-- why), all nullable; allows the statuses awaiting, approved, rejected and expired; and indexes the rows awaiting
-- approval, by the generated column awaiting_since. One statement, so the table is copied once. The check is
-- dropped with DROP CONSTRAINT, which MariaDB and MySQL 8.0.19+ both take (MariaDB refuses MySQL's DROP CHECK).
-- A released migration never changes: a change to the table is a new migration beside it.
ALTER TABLE tool_audit
	ADD COLUMN awaiting_since  DATETIME(6) GENERATED ALWAYS AS
		(CASE WHEN status = 'awaiting' THEN started_at END) STORED AFTER unsettled_since,
	ADD COLUMN approval_reason TEXT,
	ADD COLUMN decided_by      VARCHAR(255),
	ADD COLUMN decided_at      DATETIME(6),
	ADD COLUMN decision_reason TEXT,
	DROP CONSTRAINT tool_audit_status_ck,
	ADD CONSTRAINT tool_audit_status_ck CHECK (status IN ('attempting', 'succeeded', 'failed', 'unknown',
		'awaiting', 'approved', 'rejected', 'expired'));

-- The calls awaiting a person's approval, oldest first: listed, and expired when too old, in one range
-- however many other rows there are.
CREATE INDEX tool_audit_awaiting_ix ON tool_audit (awaiting_since);
