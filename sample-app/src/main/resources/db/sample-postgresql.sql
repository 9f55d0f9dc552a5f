-- The sample's own data (quotes), and what the three external systems keep (tickets, sends, reservations).
CREATE TABLE IF NOT EXISTS quotes (
	id           BIGSERIAL PRIMARY KEY,
	reference    VARCHAR(80)    NOT NULL UNIQUE,
	account_name VARCHAR(200)   NOT NULL,
	sku          VARCHAR(50)    NOT NULL,
	quantity     INT            NOT NULL,
	total        NUMERIC(12, 2) NOT NULL
);
CREATE TABLE IF NOT EXISTS ext_tickets (
	id           BIGSERIAL PRIMARY KEY,
	account_name VARCHAR(200) NOT NULL,
	issue        VARCHAR(500) NOT NULL,
	reference    VARCHAR(80)
);
CREATE INDEX IF NOT EXISTS ext_tickets_reference ON ext_tickets (reference);
CREATE TABLE IF NOT EXISTS ext_sent_quotes (
	id              BIGSERIAL PRIMARY KEY,
	idempotency_key VARCHAR(200) NOT NULL UNIQUE,
	quote_id        BIGINT       NOT NULL
);
CREATE TABLE IF NOT EXISTS ext_reservations (
	id           BIGSERIAL PRIMARY KEY,
	account_name VARCHAR(200) NOT NULL,
	sku          VARCHAR(50)  NOT NULL,
	quantity     INT          NOT NULL,
	reference    VARCHAR(80),
	created_at   TIMESTAMP NOT NULL
);
CREATE INDEX IF NOT EXISTS ext_reservations_reference ON ext_reservations (reference);
-- The agent's runs as the page shows them (the request, each call and what the model read, the answer): the
-- page rebuilds its runs and its chat from here, after a reload or a restart.
CREATE TABLE IF NOT EXISTS sample_runs (
	id              BIGSERIAL PRIMARY KEY,
	run_id          VARCHAR(255),
	request         TEXT        NOT NULL,
	idempotency_off BOOLEAN     NOT NULL,
	asked_at        TIMESTAMPTZ NOT NULL,
	answer          TEXT,
	calls           TEXT        NOT NULL
);
