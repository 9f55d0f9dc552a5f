package io.idempotency.autoconfigure;

import java.util.List;
import java.util.Set;

import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.ledger.LedgerSchema;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

/**
 * Fails the start where a tool needs a person's approval and the ledger table lacks the columns of approvals
 * (a table made before the ledger's migration {@code 1.0.0.0.4}): such a tool could claim no call. The message
 * names the tools, the columns missing and the migration to apply. A table without them starts where no tool
 * needs approval. It checks once the tools are known, before the web server and the maintenance start.
 */
final class LedgerApprovalColumns implements SmartLifecycle {

	/** Before the web server, the maintenance and anything else that serves calls. */
	static final int PHASE = Integer.MIN_VALUE + 1000;

	private final ObjectProvider<IdempotentToolRegistry> tools;

	private final ObjectProvider<LedgerSchemaInitializer> tables;

	private volatile boolean running;

	LedgerApprovalColumns(ObjectProvider<IdempotentToolRegistry> tools,
			ObjectProvider<LedgerSchemaInitializer> tables) {
		this.tools = tools;
		this.tables = tables;
	}

	@Override
	public void start() {
		IdempotentToolRegistry registry = this.tools.getIfAvailable();
		Set<String> needApproval = (registry != null) ? registry.approvalToolNames() : Set.of();
		LedgerSchemaInitializer table = this.tables.getIfAvailable();
		if (!needApproval.isEmpty() && table != null) {
			List<String> missing = table.missingColumns(LedgerSchema.APPROVAL_COLUMNS);
			if (!missing.isEmpty()) {
				throw new IllegalStateException("The tools " + new java.util.TreeSet<>(needApproval) + " need a person's"
						+ " approval, but the idempotency ledger table " + table.tableName() + " lacks the columns "
						+ missing + " of the ledger's migration 1.0.0.0.4: apply "
						+ LedgerSchema.approvalsUpgradeLocation(table.platform())
						+ " (with the table's name in place of tool_audit), or let Flyway or Liquibase apply the"
						+ " ledger's migrations");
			}
		}
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
