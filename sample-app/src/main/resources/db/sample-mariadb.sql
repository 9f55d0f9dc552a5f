-- The sample's own data (quotes), and what the three external systems keep (tickets, sends, reservations).
CREATE TABLE IF NOT EXISTS quotes (
	id           BIGINT AUTO_INCREMENT PRIMARY KEY,
	reference    VARCHAR(80)    NOT NULL UNIQUE,
	account_name VARCHAR(200)   NOT NULL,
	sku          VARCHAR(50)    NOT NULL,
	quantity     INT            NOT NULL,
	total        DECIMAL(12, 2) NOT NULL
);
CREATE TABLE IF NOT EXISTS ext_tickets (
	id           BIGINT AUTO_INCREMENT PRIMARY KEY,
	account_name VARCHAR(200) NOT NULL,
	issue        VARCHAR(500) NOT NULL,
	reference    VARCHAR(80),
	INDEX ext_tickets_reference (reference)
);
CREATE TABLE IF NOT EXISTS ext_sent_quotes (
	id              BIGINT AUTO_INCREMENT PRIMARY KEY,
	idempotency_key VARCHAR(200) NOT NULL UNIQUE,
	quote_id        BIGINT       NOT NULL
);
CREATE TABLE IF NOT EXISTS ext_reservations (
	id           BIGINT AUTO_INCREMENT PRIMARY KEY,
	account_name VARCHAR(200) NOT NULL,
	sku          VARCHAR(50)  NOT NULL,
	quantity     INT          NOT NULL,
	reference    VARCHAR(80),
	created_at   DATETIME(6) NOT NULL,
	INDEX ext_reservations_reference (reference)
);
-- The agent's runs as the page shows them (the request, each call and what the model read, the answer): the
-- page rebuilds its runs and its chat from here, after a reload or a restart.
CREATE TABLE IF NOT EXISTS sample_runs (
	id              BIGINT AUTO_INCREMENT PRIMARY KEY,
	run_id          VARCHAR(255),
	request         TEXT        NOT NULL,
	idempotency_off BOOLEAN     NOT NULL,
	asked_at        DATETIME(6) NOT NULL,
	answer          LONGTEXT,
	calls           LONGTEXT    NOT NULL
);
