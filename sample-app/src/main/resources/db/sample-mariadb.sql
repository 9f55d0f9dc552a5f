-- The sample's own data (quotes), and what the two external systems keep (tickets, sends).
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
