-- The idempotency ledger for MariaDB 10.6+ and MySQL 8+.
-- The unique constraint on idempotency_key is the control: a call executes only after its
-- insert wins. Times are UTC. Rename tool_audit throughout to use another table name.
CREATE TABLE tool_audit (
	id                 BIGINT       NOT NULL AUTO_INCREMENT,
	idempotency_key    CHAR(64)     NOT NULL,
	run_id             VARCHAR(255) NOT NULL,
	user_id            VARCHAR(255),
	tool               VARCHAR(255) NOT NULL,
	arguments          JSON         NOT NULL,
	status             VARCHAR(16)  NOT NULL,
	result             JSON,
	error              TEXT,
	started_at         DATETIME(6)  NOT NULL,
	heartbeat_at       DATETIME(6),
	finished_at        DATETIME(6),
	replay_count       INT          NOT NULL DEFAULT 0,
	last_replay_at     DATETIME(6),
	reconcile_attempts INT          NOT NULL DEFAULT 0,
	reconcile_owner    VARCHAR(64),
	reconcile_after    DATETIME(6),
	CONSTRAINT tool_audit_pk PRIMARY KEY (id),
	CONSTRAINT tool_audit_key_uk UNIQUE (idempotency_key),
	CONSTRAINT tool_audit_status_ck CHECK (status IN ('attempting', 'succeeded', 'failed', 'unknown'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- The reconciler's queue and retention: a range of one status at a time.
CREATE INDEX tool_audit_status_started_ix ON tool_audit (status, started_at);

-- The replay-rate window.
CREATE INDEX tool_audit_started_at_ix ON tool_audit (started_at);
