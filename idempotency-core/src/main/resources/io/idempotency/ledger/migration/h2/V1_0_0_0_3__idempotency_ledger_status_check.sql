-- The idempotency ledger, migration 1.0.0.0.3, for H2 only: writes the check of tool_audit's status as a CASE.
-- H2 2.4 evaluates the IN list that migration 1.0.0.0.1 wrote with the session that created the table, and
-- refuses every insert once that session has closed (a pool retiring the connection that migrated): the
-- ledger could claim no call after that. The values allowed are the same.
-- A released migration never changes: a change to the table is a new migration beside it.
ALTER TABLE tool_audit DROP CONSTRAINT tool_audit_status_ck;
ALTER TABLE tool_audit ADD CONSTRAINT tool_audit_status_ck CHECK (CASE status WHEN 'attempting' THEN TRUE
	WHEN 'succeeded' THEN TRUE WHEN 'failed' THEN TRUE WHEN 'unknown' THEN TRUE ELSE FALSE END);
