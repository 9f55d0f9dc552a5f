-- The idempotency ledger for MariaDB 10.6+ and MySQL 8+.
-- The unique constraint on idempotency_key is the control: a call executes only after its
-- insert wins. Times are UTC. Rename tool_audit throughout to use another table name.
CREATE TABLE tool_audit (
	id                 BIGINT       NOT NULL AUTO_INCREMENT,
	idempotency_key    VARCHAR(64)  NOT NULL,
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
	-- The claim time of an unsettled row, NULL once settled: the reconciler's queue. Kept apart from
	-- status so that no index on status tempts the optimizer away from the key when an outcome is written.
	unsettled_since    DATETIME(6) GENERATED ALWAYS AS
		(CASE WHEN status IN ('attempting', 'unknown') THEN started_at END) STORED,
	-- The claim time of a row awaiting a person's approval, NULL otherwise: the queue of approvals, kept apart
	-- from status as unsettled_since is.
	awaiting_since     DATETIME(6) GENERATED ALWAYS AS
		(CASE WHEN status = 'awaiting' THEN started_at END) STORED,
	-- The last decision of an operator on the row: who, when and why (see Settlements).
	settled_by         VARCHAR(255),
	settled_at         DATETIME(6),
	settle_reason      TEXT,
	-- A person's approval before the effect: why the tool asked for it, and who decided, when and why.
	approval_reason    TEXT,
	decided_by         VARCHAR(255),
	decided_at         DATETIME(6),
	decision_reason    TEXT,
	CONSTRAINT tool_audit_pk PRIMARY KEY (id),
	CONSTRAINT tool_audit_key_uk UNIQUE (idempotency_key),
	CONSTRAINT tool_audit_status_ck CHECK (status IN ('attempting', 'succeeded', 'failed', 'unknown',
		'awaiting', 'approved', 'rejected', 'expired'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- The reconciler's queue: unsettled rows only, oldest first, one range however many settled rows there are.
CREATE INDEX tool_audit_unsettled_ix ON tool_audit (unsettled_since);

-- Retention and the replay-rate window.
CREATE INDEX tool_audit_started_at_ix ON tool_audit (started_at);

-- The calls awaiting a person's approval, oldest first: listed, and expired when too old, in one range
-- however many other rows there are.
CREATE INDEX tool_audit_awaiting_ix ON tool_audit (awaiting_since);
