package io.idempotency.ledger;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The ledger table's name, checked once as an SQL identifier so that configuration can never inject SQL:
 * a plain name such as {@code tool_audit}, optionally qualified by a schema ({@code agents.tool_audit}).
 */
record TableName(String qualified, String unqualified) {

	/** The table name of the shipped schema scripts. */
	static final String DEFAULT = "tool_audit";

	/** The table's name in the shipped scripts, alone or as the start of a constraint or index name. */
	private static final Pattern SCRIPT_NAMES = Pattern.compile("\\b" + DEFAULT + "(_\\w+)?\\b");

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

	/**
	 * The shipped script, for this table: the table takes the qualified name, and constraint and index
	 * names ({@code tool_audit_pk}) the unqualified one, since no database accepts a qualified name there.
	 */
	String applyTo(String script) {
		return SCRIPT_NAMES.matcher(script).replaceAll((name) -> Matcher.quoteReplacement(
				(name.group(1) != null) ? this.unqualified + name.group(1) : this.qualified));
	}

	@Override
	public String toString() {
		return this.qualified;
	}

}
