package io.idempotency;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKey;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Tools whose effect is a row in {@code fault_effects}, written through the same faulty connections as the
 * ledger's. Each checks, on a connection that never fails, that its claim is committed before it acts.
 */
public class FaultTools {

	static final String EFFECTS = "fault_effects";

	private final JdbcTemplate effects;

	private final JdbcTemplate observer;

	private final String ledgerTable;

	private final List<String> violations = new CopyOnWriteArrayList<>();

	private volatile Runnable afterEffect = () -> {
	};

	private final TransactionTemplate transactions;

	FaultTools(DataSource faulty, DataSource observer, String ledgerTable) {
		this.effects = new JdbcTemplate(faulty);
		// The effect commits in a transaction (or joins the tool's), as on a pool with auto-commit off it must.
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(faulty));
		this.observer = new JdbcTemplate(observer);
		this.ledgerTable = ledgerTable;
	}

	/** Runs after each effect, before the tool returns: where a test makes the database go away. */
	public void afterEffect(Runnable action) {
		this.afterEffect = action;
	}

	/** Calls that executed without a committed claim: must stay empty. */
	public List<String> violations() {
		return List.copyOf(this.violations);
	}

	@IdempotentTool(name = "place_order", reconcile = "findOrder")
	public String placeOrder(String item) {
		IdempotencyKey key = IdempotentInvocation.current().key();
		List<String> claim = this.observer.queryForList(
				"SELECT status FROM " + this.ledgerTable + " WHERE idempotency_key = ?", String.class, key.value());
		if (!claim.equals(List.of("attempting"))) {
			this.violations.add("place_order executed for " + key + " with its committed claim " + claim);
		}
		return effect(key, item);
	}

	Reconciliation<String> findOrder(IdempotencyKey key) {
		String reference = key.externalReference("o");
		Integer found = this.effects.queryForObject("SELECT COUNT(*) FROM " + EFFECTS + " WHERE reference = ?",
				Integer.class, reference);
		return (found > 0) ? Reconciliation.found(reference) : Reconciliation.notFound();
	}

	@IdempotentTool(name = "place_order_in_transaction", transactional = true)
	public String placeOrderInTransaction(String item) {
		return effect(IdempotentInvocation.current().key(), item);
	}

	private String effect(IdempotencyKey key, String item) {
		String reference = key.externalReference("o");
		this.transactions.executeWithoutResult((status) -> this.effects
			.update("INSERT INTO " + EFFECTS + " (reference, item) VALUES (?, ?)", reference, item));
		this.afterEffect.run();
		return reference;
	}

}
