-- The idempotency ledger, migration 1.0.0.0.1, for MariaDB and MySQL: creates the table tool_audit.
-- Applied in order, the migrations in this folder create the table that schema-mysql.sql creates.
-- A released migration never changes: a change to the table is a new migration beside it.
-- Flyway: classpath:io/idempotency/ledger/migration/{vendor}. Liquibase:
-- io/idempotency/ledger/changelog/db.changelog-idempotency.yaml. The table name is fixed.
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
	CONSTRAINT tool_audit_pk PRIMARY KEY (id),
	CONSTRAINT tool_audit_key_uk UNIQUE (idempotency_key),
	CONSTRAINT tool_audit_status_ck CHECK (status IN ('attempting', 'succeeded', 'failed', 'unknown'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- The reconciler's queue: unsettled rows only, oldest first, one range however many settled rows there are.
CREATE INDEX tool_audit_unsettled_ix ON tool_audit (unsettled_since);

-- Retention and the replay-rate window.
CREATE INDEX tool_audit_started_at_ix ON tool_audit (started_at);
