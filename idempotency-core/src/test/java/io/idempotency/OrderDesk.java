package io.idempotency;

import java.util.function.Supplier;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

/** An application's own service: it writes a row of its own, then calls a tool, in one transaction. */
public class OrderDesk {

	private final JdbcTemplate jdbc;

	public OrderDesk(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Writes its own row, then makes the call, in a transaction of its own; what the call answered, returned
	 * or thrown, is handed back, and the transaction commits.
	 */
	@Transactional(isolation = Isolation.READ_COMMITTED)
	public Object writeThenCall(String reference, Supplier<?> call) {
		this.jdbc.update("INSERT INTO quotes (account_name, sku, quantity, reference) VALUES ('desk', 'DESK', 1, ?)",
				reference);
		try {
			return call.get();
		}
		catch (RuntimeException answer) {
			return answer;
		}
	}

	/** Whether the row of this reference was committed. */
	public boolean wrote(String reference) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM quotes WHERE sku = 'DESK' AND reference = ?",
				Integer.class, reference) == 1;
	}

}
