-- The idempotency ledger, migration 1.0.0.0.4, for H2: a person's approval before the effect. Adds to the table
-- tool_audit the columns where it is recorded (why the tool asked for it, and who decided, when and why), all
-- nullable, where they are not yet; and writes the status check anew, allowing awaiting, approved, rejected and
-- expired too. The check stays a CASE (see 1.0.0.0.3). The index on (status, started_at) serves the rows awaiting
-- approval. Liquibase runs it on any table, after 1.0.0.0.3, which writes the check of the first four statuses.
-- A released migration never changes: a change to the table is a new migration beside it.
ALTER TABLE tool_audit ADD COLUMN IF NOT EXISTS approval_reason CHARACTER LARGE OBJECT;
ALTER TABLE tool_audit ADD COLUMN IF NOT EXISTS decided_by VARCHAR(255);
ALTER TABLE tool_audit ADD COLUMN IF NOT EXISTS decided_at TIMESTAMP(6) WITH TIME ZONE;
ALTER TABLE tool_audit ADD COLUMN IF NOT EXISTS decision_reason CHARACTER LARGE OBJECT;
ALTER TABLE tool_audit DROP CONSTRAINT tool_audit_status_ck;
ALTER TABLE tool_audit ADD CONSTRAINT tool_audit_status_ck CHECK (CASE status WHEN 'attempting' THEN TRUE
	WHEN 'succeeded' THEN TRUE WHEN 'failed' THEN TRUE WHEN 'unknown' THEN TRUE WHEN 'awaiting' THEN TRUE
	WHEN 'approved' THEN TRUE WHEN 'rejected' THEN TRUE WHEN 'expired' THEN TRUE ELSE FALSE END);
