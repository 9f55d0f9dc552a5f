package io.idempotency.test;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

import javax.sql.DataSource;

import io.idempotency.OrderTools;
import io.idempotency.OrderTools.Order;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.OutcomeWriteBehind;
import io.idempotency.ledger.Redaction;
import io.idempotency.ledger.ReplayCache;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static io.idempotency.test.LedgerAssertions.assertThatLedger;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The ledger assertions hold what the advice recorded, and fail with a message that shows the ledger's
 * calls, on the in-memory ledger and on the JDBC ledger on each database.
 */
class LedgerAssertionsTest {

	private static final String TABLE = "ledger_assertions";

	private AnnotationConfigApplicationContext context;

	private DataSource dataSource;

	static Stream<Named<TestDatabase>> ledgers() {
		return Stream.of(Named.of("in memory", null), Named.of("H2", TestDatabase.H2),
				Named.of("PostgreSQL", TestDatabase.POSTGRESQL), Named.of("MariaDB", TestDatabase.MARIADB));
	}

	@AfterEach
	void stop() {
		if (this.context != null) {
			this.context.close();
		}
		if (this.dataSource != null) {
			LedgerSchema.drop(this.dataSource, TABLE);
		}
	}

	@ParameterizedTest
	@MethodSource("ledgers")
	void aCallExecutedOnceAndReplayedTwiceIsSeenSo(TestDatabase database) throws Exception {
		CallLedger ledger = ledgerOn(database);
		OrderTools tools = start(ledger);

		Order order = inRun("r1", () -> tools.placeOrder("pump", 2));
		inRun("r1", () -> tools.placeOrder("pump", 2));
		inRun("r1", () -> tools.placeOrder("pump", 2));
		inRun("r2", () -> tools.placeOrder("valve", 1));

		assertThatLedger(ledger).hasExecuted("place_order", 2).hasExecuted("refuse_order", 0);
		assertThatLedger(ledger).call("place_order", "r1")
			.succeeded()
			.wasReplayed(2)
			.wasMadeBy("rep-1")
			.hasArguments("{\"quantity\": 2, \"item\": \"pump\"}")
			.hasResult("{\"item\":\"pump\",\"quantity\":2,\"reference\":\"" + order.reference() + "\"}");
		assertThatLedger(ledger).call("place_order", "r2").succeeded().wasNotReplayed();
		assertThat(tools.executions()).isEqualTo(2);
	}

	static Stream<Named<TestDatabase>> databases() {
		return ledgers().filter((ledger) -> ledger.getPayload() != null);
	}

	/** Outcomes that wait behind their callers (an hour, here) are written before the assertions read the table. */
	@ParameterizedTest
	@MethodSource("databases")
	void aCallWhoseOutcomeWaitsBehindItsCallerIsSeenAsItWillBeWritten(TestDatabase database) throws Exception {
		ledgerOn(database);
		JdbcLedger ledger = new JdbcLedger(this.dataSource, TABLE, Redaction.defaults(), ReplayCache.off(),
				new OutcomeWriteBehind(100, 100, Duration.ofHours(1)));
		OrderTools tools = start(ledger);

		inRun("r1", () -> tools.placeOrder("pump", 2));
		inRun("r1", () -> tools.placeOrder("pump", 2));
		catchThrowable(() -> inRun("r1", () -> tools.refuseOrder("unobtainium")));

		assertThat(ledger.pendingOutcomes()).isEqualTo(2);
		assertThatLedger(ledger).call("place_order", "r1").succeeded().wasReplayed(1);
		assertThatLedger(ledger).call("refuse_order").failed().hasErrorContaining("no such item");
		assertThat(ledger.pendingOutcomes()).isZero();
		assertThatLedger(ledger).hasExecuted("place_order", 1).hasExecuted("refuse_order", 1);
	}

	@ParameterizedTest
	@MethodSource("ledgers")
	void failedAndUnknownCallsAreSeenWithTheirErrors(TestDatabase database) throws Exception {
		CallLedger ledger = ledgerOn(database);
		OrderTools tools = start(ledger);

		catchThrowable(() -> inRun("r1", () -> tools.refuseOrder("unobtainium")));
		catchThrowable(() -> inRun("r1", () -> tools.refuseOrder("unobtainium")));
		catchThrowable(() -> inRun("r1", () -> tools.placeOrderTimingOut("pump", 1, true)));

		assertThatLedger(ledger).call("refuse_order").failed().wasReplayed(1).hasErrorContaining("no such item");
		assertThatLedger(ledger).call("place_order_timing_out").isUnknown().hasErrorContaining("Read timed out");
	}

	@ParameterizedTest
	@MethodSource("ledgers")
	void aFailedAssertionShowsTheLedgersCalls(TestDatabase database) throws Exception {
		CallLedger ledger = ledgerOn(database);
		OrderTools tools = start(ledger);
		assertThatLedger(ledger).hasNoCalls();
		inRun("r1", () -> tools.placeOrder("pump", 2));
		inRun("r2", () -> tools.placeOrder("pump", 2));

		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThatLedger(ledger).hasExecutedOnce("place_order"))
			.withMessageContaining("Expected place_order to have executed 1 time(s), but the ledger holds 2 call(s)")
			.withMessageContaining("place_order in run r1 for user rep-1: succeeded, replayed 0 time(s)")
			.withMessageContaining("place_order in run r2");
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThatLedger(ledger).call("place_order"))
			.withMessageContaining("Expected one call of place_order in any run, but the ledger holds 2 of them");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThatLedger(ledger).call("open_ticket", "r1"))
			.withMessageContaining("Expected one call of open_ticket in run r1, but the ledger holds 0 of them");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThatLedger(ledger).call("place_order", "r1").failed())
			.withMessageContaining("Expected the call to be failed, but it is succeeded");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThatLedger(ledger).call("place_order", "r1").wasReplayed(1))
			.withMessageContaining("Expected the call to have been replayed 1 time(s), but it was replayed 0 time(s)");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThatLedger(ledger).call("place_order", "r1").hasArguments("{\"item\": \"valve\"}"))
			.withMessageContaining("Expected the call's arguments to be");
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThatLedger(ledger).hasNoCalls())
			.withMessageContaining("Expected the ledger to hold no call, but it holds 2");
	}

	@ParameterizedTest
	@MethodSource("ledgers")
	void argumentsAreAssertedAsStoredWithSensitiveValuesRedacted(TestDatabase database) {
		CallLedger ledger = ledgerOn(database);
		String arguments = "{\"user\": \"ada\", \"password\": \"hunter2\"}";
		ledger.claim(new ClaimRequest(IdempotencyKeys.derive("sign_in", arguments, "r1"), "r1", null, "sign_in",
				arguments, Set.of()));

		assertThatLedger(ledger).call("sign_in")
			.isAttempting()
			.wasMadeBy(null)
			.hasArguments("{\"user\": \"ada\", \"password\": \"[REDACTED]\"}");
	}

	@Test
	void aLedgerTheAssertionsCannotReadIsNamed() {
		CallLedger other = (CallLedger) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { CallLedger.class }, (proxy, method, arguments) -> null);

		assertThatIllegalArgumentException().isThrownBy(() -> assertThatLedger(other).hasNoCalls())
			.withMessageContaining("The ledger assertions read an InMemoryLedger or a JdbcLedger, not a");
	}

	private CallLedger ledgerOn(TestDatabase database) {
		if (database == null) {
			return new InMemoryLedger();
		}
		this.dataSource = TestDatabases.dataSource(database);
		LedgerSchema.drop(this.dataSource, TABLE);
		LedgerSchema.create(this.dataSource, TABLE);
		return new JdbcLedger(this.dataSource, TABLE, Redaction.defaults());
	}

	private OrderTools start(CallLedger ledger) {
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(CallLedger.class, () -> ledger);
		this.context.register(OrderTools.Enabled.class);
		this.context.refresh();
		return this.context.getBean(OrderTools.class);
	}

	private static <T> T inRun(String runId, Callable<T> call) throws Exception {
		return RunContext.call(new Run(runId, "rep-1"), call);
	}

}
