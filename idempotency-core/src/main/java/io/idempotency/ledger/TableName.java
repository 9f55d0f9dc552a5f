package io.idempotency.ledger;

import java.util.regex.Pattern;

/**
 * The ledger table's name, checked once as an SQL identifier so that configuration can never inject SQL:
 * a plain name such as {@code tool_audit}, optionally qualified by a schema ({@code agents.tool_audit}).
 */
record TableName(String qualified, String unqualified) {

	/** The table name of the shipped schema scripts. */
	static final String DEFAULT = "tool_audit";

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,47}");

	static TableName of(String name) {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("The ledger table name must not be blank");
		}
		String[] parts = name.split("\\.", -1);
		boolean valid = parts.length <= 2;
		for (String part : parts) {
			valid &= IDENTIFIER.matcher(part).matches();
		}
		if (!valid) {
			throw new IllegalArgumentException("The ledger table name '" + name + "' is not a valid SQL identifier: use"
					+ " letters, digits and underscores, starting with a letter or underscore, at most 48 characters,"
					+ " optionally qualified by a schema as schema.table");
		}
		return new TableName(name, parts[parts.length - 1]);
	}

	/** The shipped script, for this table: constraint and index names take the unqualified name. */
	String applyTo(String script) {
		return script.replace(DEFAULT + "_", this.unqualified + "_").replace(DEFAULT, this.qualified);
	}

	@Override
	public String toString() {
		return this.qualified;
	}

}
