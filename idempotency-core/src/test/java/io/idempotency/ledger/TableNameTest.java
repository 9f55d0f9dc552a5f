package io.idempotency.ledger;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** A configured table name can never carry SQL into a statement. */
class TableNameTest {

	@ParameterizedTest
	@ValueSource(strings = { "tool_audit", "ToolAudit", "_audit", "agents.tool_audit", "a1" })
	void sqlIdentifiersAreAccepted(String name) {
		assertThat(TableName.of(name).qualified()).isEqualTo(name);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", " ", "tool_audit; DROP TABLE users", "tool audit", "1audit", "a.b.c", "audit.",
			".audit", "\"audit\"", "audit--", "tool_audit_with_a_name_that_is_much_too_long_for_us" })
	void anythingElseIsRefusedWithTheNameInTheMessage(String name) {
		assertThatIllegalArgumentException().isThrownBy(() -> TableName.of(name)).withMessageContaining("table name");
	}

	@Test
	void aNullNameIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> TableName.of(null))
			.withMessage("The ledger table name must not be blank");
	}

	@Test
	void theSchemaScriptsTakeTheTableNameAndNameConstraintsAfterIt() {
		String script = LedgerSchema.createScript("postgresql", "agents.ledger");
		assertThat(script).contains("CREATE TABLE agents.ledger (")
			.contains("CONSTRAINT ledger_key_uk UNIQUE (idempotency_key)")
			.contains("CREATE INDEX ledger_unsettled_ix ON agents.ledger (started_at)")
			.doesNotContain("tool_audit");
	}

	@Test
	void aQualifiedTableOfTheDefaultNameKeepsConstraintAndIndexNamesUnqualified() {
		String script = LedgerSchema.createScript("mysql", "agents.tool_audit");
		assertThat(script).contains("CREATE TABLE agents.tool_audit (")
			.contains("CONSTRAINT tool_audit_pk PRIMARY KEY (id)")
			.contains("CREATE INDEX tool_audit_unsettled_ix ON agents.tool_audit (unsettled_since)")
			.doesNotContain("agents.tool_audit_");
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "mysql", "h2" })
	void everyPlatformShipsACreateAndADropScriptUnderThePackagePath(String platform) {
		assertThat(LedgerSchema.createScript(platform, "tool_audit")).contains("CREATE TABLE tool_audit");
		assertThat(LedgerSchema.class.getResource("schema-drop-" + platform + ".sql")).isNotNull();
		assertThat(LedgerSchema.class.getResource("/schema-" + platform + ".sql")).isNull();
		assertThat(LedgerSchema.createScriptLocation(platform))
			.isEqualTo("classpath:io/idempotency/ledger/schema-" + platform + ".sql");
	}

}
