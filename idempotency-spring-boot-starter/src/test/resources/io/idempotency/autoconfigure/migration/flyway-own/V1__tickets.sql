-- An application's own first migration; the ledger's migrations are in a history of their own.
CREATE TABLE tickets (
	id    INTEGER      NOT NULL,
	issue VARCHAR(200) NOT NULL,
	CONSTRAINT tickets_pk PRIMARY KEY (id)
);
