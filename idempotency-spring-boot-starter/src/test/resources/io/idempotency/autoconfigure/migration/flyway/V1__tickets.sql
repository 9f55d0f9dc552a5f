-- An application's own first migration, which shares Flyway's history with the ledger's.
CREATE TABLE tickets (
	id    INTEGER      NOT NULL,
	issue VARCHAR(200) NOT NULL,
	CONSTRAINT tickets_pk PRIMARY KEY (id)
);
