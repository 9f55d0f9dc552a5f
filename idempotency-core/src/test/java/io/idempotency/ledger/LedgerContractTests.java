package io.idempotency.ledger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.testsupport.CountingDataSource;
import io.idempotency.testsupport.DatabaseFacts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The ledger's behaviour, run unchanged on every supported database: a subclass only names its
 * {@link DataSource}.
 */
abstract class LedgerContractTests {

	static final String TABLE = "ledger_test";

	static final String USER = "user-a";

	DataSource dataSource;

	JdbcLedger ledger;

	JdbcTemplate jdbc;

	abstract DataSource dataSource();

	/** What the tests need to know of the database this suite runs on. */
	abstract DatabaseFacts facts();

	@BeforeEach
	void createTable() {
		this.dataSource = dataSource();
		LedgerSchema.drop(this.dataSource, TABLE);
		LedgerSchema.create(this.dataSource, TABLE);
		this.ledger = new JdbcLedger(this.dataSource, TABLE, Redaction.defaults());
		this.jdbc = new JdbcTemplate(this.dataSource);
	}

	@AfterEach
	void dropTable() {
		if (this.dataSource == null) {
			return;
		}
		LedgerSchema.drop(this.dataSource, TABLE);
	}

	static ClaimRequest request(String runId, String arguments) {
		return request(runId, USER, arguments);
	}

	/** Claims each request, each of which must win, in order. */
	static List<Claim.Won> claimAll(CallLedger ledger, ClaimRequest... requests) {
		return java.util.Arrays.stream(requests).map((request) -> won(ledger.claim(request))).toList();
	}

	/** The claim, which must have won: its outcome is recorded with it. */
	static Claim.Won won(Claim claim) {
		assertThat(claim).isInstanceOf(Claim.Won.class);
		return (Claim.Won) claim;
	}

	static ClaimRequest request(String runId, String userId, String arguments) {
		return new ClaimRequest(IdempotencyKeys.derive("open_ticket", arguments, runId), runId, userId, "open_ticket",
				arguments);
	}

	static final String ARGUMENTS = "{\"accountName\":\"Henderson Industrial\",\"issue\":\"seal failure\"}";

	// The claim and the three cases of a lost claim

	@Test
	void theFirstClaimWinsAndLeavesTheRowAttempting() {
		ClaimRequest request = request("r1", ARGUMENTS);

		Claim claim = this.ledger.claim(request);

		LedgerEntry entry = this.ledger.find(request.key()).orElseThrow();
		assertThat(claim).isEqualTo(new Claim.Won(request.key(), entry.id()));
		assertThat(entry.status()).isEqualTo(LedgerStatus.ATTEMPTING);
		assertThat(entry.runId()).isEqualTo("r1");
		assertThat(entry.userId()).isEqualTo(USER);
		assertThat(entry.tool()).isEqualTo("open_ticket");
		assertThat(entry.arguments()).contains("Henderson Industrial");
		assertThat(entry.startedAt()).isNotNull();
		assertThat(entry.finishedAt()).isNull();
	}

	@Test
	void aRepeatOfASucceededCallIsAReplayOfTheStoredResult() {
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won won = won(this.ledger.claim(request));
		this.ledger.recordSucceeded(won, "{\"ticketId\":\"T-1001\"}");

		Claim repeat = this.ledger.claim(request);

		assertThat(repeat).isInstanceOfSatisfying(Claim.Replay.class,
				(replay) -> assertThat(replay.result()).isEqualToIgnoringWhitespace("{\"ticketId\":\"T-1001\"}"));
	}

	@Test
	void aRepeatOfAFailedCallIsAPreviousFailureAndDoesNotExecute() {
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won won = won(this.ledger.claim(request));
		this.ledger.recordFailed(won, "account is closed");

		assertThat(this.ledger.claim(request)).isInstanceOfSatisfying(Claim.PreviousAttemptFailed.class,
				(failed) -> assertThat(failed.error()).isEqualTo("account is closed"));
	}

	@Test
	void aRepeatOfACallInFlightIsInProgressSinceItStarted() {
		ClaimRequest request = request("r1", ARGUMENTS);
		this.ledger.claim(request);
		LedgerEntry entry = this.ledger.find(request.key()).orElseThrow();

		assertThat(this.ledger.claim(request)).isInstanceOfSatisfying(Claim.InProgress.class,
				(inProgress) -> assertThat(inProgress.since()).isEqualTo(entry.startedAt()));
	}

	@Test
	void aRepeatOfACallWithAnUnknownOutcomeIsInProgressNotAFailure() {
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won won = won(this.ledger.claim(request));
		this.ledger.recordUnknown(won, "read timed out");

		assertThat(this.ledger.claim(request)).isInstanceOf(Claim.InProgress.class);
	}

	@Test
	void aNewRunClaimsItsOwnRow() {
		// Monday's ticket and Tuesday's ticket: the same arguments in two runs are two intents.
		assertThat(this.ledger.claim(request("monday", ARGUMENTS))).isInstanceOf(Claim.Won.class);
		assertThat(this.ledger.claim(request("tuesday", ARGUMENTS))).isInstanceOf(Claim.Won.class);
	}

	// Every write committed by the ledger itself, whatever the pool's auto-commit

	/** Connections as a pool configured with {@code auto-commit=false} hands them out. */
	private DataSource withoutAutoCommit() {
		return new DelegatingDataSource(this.dataSource) {
			@Override
			public Connection getConnection() throws SQLException {
				Connection connection = super.getConnection();
				connection.setAutoCommit(false);
				return connection;
			}
		};
	}

	/**
	 * A DataSource that cannot give a connection on this thread, whether it throws SQLException (a pool) or
	 * IllegalStateException (a routing DataSource that finds no target for the thread's key), or returns null:
	 * the claim fails as the ledger being unavailable, a data access failure, and claims nothing.
	 */
	@Test
	void aDataSourceThatCannotGiveAConnectionLeavesTheLedgerUnavailableAndClaimsNothing() {
		ThreadLocal<String> target = ThreadLocal.withInitial(() -> "ledger");
		org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource routing =
				new org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource() {
					@Override
					protected Object determineCurrentLookupKey() {
						return target.get();
					}
				};
		routing.setTargetDataSources(Map.of("ledger", this.dataSource));
		routing.setLenientFallback(false);
		routing.afterPropertiesSet();
		java.util.concurrent.atomic.AtomicReference<String> failing = new java.util.concurrent.atomic.AtomicReference<>();
		DataSource failingWhenTold = new DelegatingDataSource(routing) {
			@Override
			public Connection getConnection() throws SQLException {
				if ("sql".equals(failing.get())) {
					throw new SQLException("the pool is exhausted");
				}
				return "null".equals(failing.get()) ? null : super.getConnection();
			}
		};
		JdbcLedger ledger = new JdbcLedger(failingWhenTold, TABLE, Redaction.defaults());
		ClaimRequest request = request("r1", ARGUMENTS);

		target.set("elsewhere");
		assertThatExceptionOfType(org.springframework.jdbc.CannotGetJdbcConnectionException.class)
			.isThrownBy(() -> ledger.claim(request))
			.withRootCauseInstanceOf(IllegalStateException.class);
		target.set("ledger");
		failing.set("sql");
		assertThatExceptionOfType(org.springframework.jdbc.CannotGetJdbcConnectionException.class)
			.isThrownBy(() -> ledger.claim(request))
			.withRootCauseInstanceOf(SQLException.class);
		failing.set("null");
		assertThatExceptionOfType(org.springframework.jdbc.CannotGetJdbcConnectionException.class)
			.isThrownBy(() -> ledger.claim(request))
			.withMessageContaining("Failed to obtain JDBC Connection");

		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE, Integer.class)).isZero();
		failing.set(null);
		assertThat(ledger.claim(request)).isInstanceOf(Claim.Won.class);
	}

	@Test
	void aClaimIsCommittedOnAPoolWithAutoCommitOff() {
		JdbcLedger ledger = new JdbcLedger(withoutAutoCommit(), TABLE, Redaction.defaults());
		ClaimRequest request = request("r1", ARGUMENTS);

		assertThat(ledger.claim(request)).isInstanceOf(Claim.Won.class);

		// Seen from another connection: the row exists, so a repeat anywhere does not execute again.
		assertThat(this.ledger.claim(request)).isInstanceOf(Claim.InProgress.class);
		assertThat(ledger.claim(request)).isInstanceOf(Claim.InProgress.class);
	}

	@Test
	void outcomesAreCommittedOnAPoolWithAutoCommitOff() {
		JdbcLedger ledger = new JdbcLedger(withoutAutoCommit(), TABLE, Redaction.defaults());
		ClaimRequest succeeded = request("r1", "{\"n\":1}");
		ClaimRequest failed = request("r1", "{\"n\":2}");
		ClaimRequest unknown = request("r1", "{\"n\":3}");
		List<Claim.Won> won = claimAll(ledger, succeeded, failed, unknown);

		assertThat(ledger.recordSucceeded(won.get(0), "{\"ticketId\":\"T-1\"}")).isTrue();
		assertThat(ledger.recordFailed(won.get(1), "rejected")).isTrue();
		assertThat(ledger.recordUnknown(won.get(2), "timed out")).isTrue();

		assertThat(this.ledger.claim(succeeded)).isInstanceOf(Claim.Replay.class);
		assertThat(this.ledger.claim(failed)).isInstanceOf(Claim.PreviousAttemptFailed.class);
		assertThat(status(unknown)).isEqualTo("unknown");
	}

	@Test
	void theReconcilersWritesAndRetentionAreCommittedOnAPoolWithAutoCommitOff() {
		JdbcLedger ledger = new JdbcLedger(withoutAutoCommit(), TABLE, Redaction.defaults());
		ClaimRequest resolved = request("r1", "{\"n\":1}");
		ClaimRequest postponed = request("r1", "{\"n\":2}");
		ClaimRequest purged = request("r1", "{\"n\":3}");
		List<Claim.Won> won = claimAll(this.ledger, resolved, postponed, purged);
		this.ledger.recordSucceeded(won.get(2), "1");
		Map<IdempotencyKey, LedgerEntry> leased = new java.util.HashMap<>();
		ledger.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(5)).forEach((e) -> leased.put(e.key(), e));

		assertThat(ledger.resolveSucceeded(leased.get(resolved.key()), "{\"ticketId\":\"T-1\"}")).isTrue();
		assertThat(ledger.postpone(leased.get(postponed.key()), Duration.ofHours(1))).isTrue();
		assertThat(ledger.purgeSettled(Duration.ZERO, 10)).isEqualTo(2);

		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE, Integer.class)).isEqualTo(1);
		assertThat(this.jdbc.queryForObject("SELECT reconcile_owner FROM " + TABLE, String.class)).isNull();
		assertThat(this.ledger.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(5))).isEmpty();
	}

	private String status(ClaimRequest request) {
		return this.jdbc.queryForObject("SELECT status FROM " + TABLE + " WHERE idempotency_key = ?", String.class,
				request.key().value());
	}

	@Test
	void aSchemaQualifiedTableOfTheDefaultNameIsCreatedAndUsed() {
		// MariaDB's schema is a database; PostgreSQL and H2 have schemas.
		this.jdbc.execute("CREATE SCHEMA IF NOT EXISTS agents");
		LedgerSchema.drop(this.dataSource, "agents.tool_audit");
		try {
			LedgerSchema.create(this.dataSource, "agents.tool_audit");
			JdbcLedger ledger = new JdbcLedger(this.dataSource, "agents.tool_audit", Redaction.defaults());
			ClaimRequest request = request("r1", ARGUMENTS);

			assertThat(ledger.claim(request)).isInstanceOf(Claim.Won.class);
			assertThat(ledger.claim(request)).isInstanceOf(Claim.InProgress.class);
			assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM agents.tool_audit", Integer.class)).isEqualTo(1);
		}
		finally {
			LedgerSchema.drop(this.dataSource, "agents.tool_audit");
		}
	}

	// Heartbeats: a long call whose instance lives is never stale

	@Test
	void aCallThatStillBeatsIsNotStaleHoweverLongItRuns() {
		ClaimRequest running = request("r1", "{\"n\":1}");
		ClaimRequest crashed = request("r1", "{\"n\":2}");
		this.ledger.claim(running);
		JdbcLedger deadInstance = new JdbcLedger(this.dataSource, TABLE, Redaction.defaults());
		deadInstance.claim(crashed);
		Duration staleAfter = Duration.ofSeconds(2);
		await().atMost(Duration.ofSeconds(30)).until(() -> this.ledger.oldestUnsettled(10)
			.stream()
			.allMatch((e) -> this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE idempotency_key = ? AND "
					+ startedBefore(staleAfter), Integer.class, e.key().value()) == 1));

		assertThat(this.ledger.inFlight()).isEqualTo(1);
		assertThat(this.ledger.heartbeat()).isEqualTo(1);
		List<LedgerEntry> stale = this.ledger.leaseStale(staleAfter, 10, Duration.ofMinutes(5));

		assertThat(stale).extracting(LedgerEntry::key).containsExactly(crashed.key());
	}

	@Test
	void aCallStopsBeatingOnceItsOutcomeIsRecorded() {
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won won = won(this.ledger.claim(request));
		this.ledger.recordUnknown(won, "timed out");

		assertThat(this.ledger.inFlight()).isZero();
		assertThat(this.ledger.heartbeat()).isZero();
	}

	/** A condition on the row's claim time, by the database clock. */
	private String startedBefore(Duration age) {
		String product = this.jdbc.execute((java.sql.Connection c) -> c.getMetaData().getDatabaseProductName())
			.toLowerCase(java.util.Locale.ROOT);
		long seconds = age.toSeconds();
		if (product.contains("postgres")) {
			return "started_at < CURRENT_TIMESTAMP - INTERVAL '" + seconds + " seconds'";
		}
		if (product.contains("maria") || product.contains("mysql")) {
			return "started_at < UTC_TIMESTAMP(6) - INTERVAL " + seconds + " SECOND";
		}
		return "started_at < DATEADD(SECOND, -" + seconds + ", CURRENT_TIMESTAMP)";
	}

	@Test
	void aClaimThatCannotGetItsSecondConnectionInsideACallersTransactionSaysHowToSizeThePool() {
		HikariDataSource shared = (HikariDataSource) this.dataSource;
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(shared.getJdbcUrl());
		config.setUsername(shared.getUsername());
		config.setPassword(shared.getPassword());
		config.setMaximumPoolSize(1);
		config.setConnectionTimeout(250);
		try (HikariDataSource oneConnection = new HikariDataSource(config)) {
			JdbcLedger ledger = new JdbcLedger(oneConnection, TABLE, Redaction.defaults());
			TransactionTemplate callers = new TransactionTemplate(new DataSourceTransactionManager(oneConnection));
			ClaimRequest request = request("r1", ARGUMENTS);

			assertThatExceptionOfType(CannotCreateTransactionException.class)
				.isThrownBy(() -> callers.executeWithoutResult((status) -> ledger.claim(request)))
				.withMessageContaining("needs a second connection")
				.withMessageContaining("size the pool above the number of calls that can run inside transactions");
			assertThat(this.ledger.find(request.key())).isEmpty();
		}
	}

	// Recording outcomes

	@Test
	void eachOutcomeIsRecordedWithItsFinishingTime() {
		ClaimRequest succeeded = request("r1", "{\"n\":1}");
		ClaimRequest failed = request("r1", "{\"n\":2}");
		ClaimRequest unknown = request("r1", "{\"n\":3}");
		ClaimRequest returnsNothing = request("r1", "{\"n\":4}");
		List<Claim.Won> won = claimAll(this.ledger, succeeded, failed, unknown, returnsNothing);

		assertThat(this.ledger.recordSucceeded(won.get(0), "[1,2]")).isTrue();
		assertThat(this.ledger.recordFailed(won.get(1), "rejected")).isTrue();
		assertThat(this.ledger.recordUnknown(won.get(2), "timed out")).isTrue();
		assertThat(this.ledger.recordSucceeded(won.get(3), null)).isTrue();

		assertThat(this.ledger.find(succeeded.key()).orElseThrow()).satisfies((e) -> {
			assertThat(e.status()).isEqualTo(LedgerStatus.SUCCEEDED);
			assertThat(e.result()).isEqualToIgnoringWhitespace("[1,2]");
			assertThat(e.finishedAt()).isAfterOrEqualTo(e.startedAt());
		});
		assertThat(this.ledger.find(failed.key()).orElseThrow()).satisfies((e) -> {
			assertThat(e.status()).isEqualTo(LedgerStatus.FAILED);
			assertThat(e.error()).isEqualTo("rejected");
			assertThat(e.finishedAt()).isNotNull();
		});
		assertThat(this.ledger.find(unknown.key()).orElseThrow().status()).isEqualTo(LedgerStatus.UNKNOWN);
		assertThat(this.ledger.find(returnsNothing.key()).orElseThrow().result()).isNull();
	}

	@Test
	void anOutcomeIsRecordedOnlyOnce() {
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won won = won(this.ledger.claim(request));
		assertThat(this.ledger.recordSucceeded(won, "1")).isTrue();

		assertThat(this.ledger.recordFailed(won, "too late")).isFalse();

		assertThat(this.ledger.find(request.key()).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(this.ledger.lateCompletions()).isEqualTo(1);
	}

	@Test
	void anOutcomeIsWrittenToTheRowItsClaimWonNotToALaterClaimOfTheSameKey() {
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won won = won(this.ledger.claim(request));
		assertThat(won.rowId()).isEqualTo(this.ledger.find(request.key()).orElseThrow().id());
		// The row is gone (deleted by hand), and another instance claims the key anew while this call still runs.
		this.jdbc.update("DELETE FROM " + TABLE + " WHERE id = ?", won.rowId());
		JdbcLedger other = new JdbcLedger(this.dataSource, TABLE, Redaction.defaults());
		Claim.Won reclaim = won(other.claim(request));
		long reclaimed = this.ledger.find(request.key()).orElseThrow().id();
		assertThat(reclaimed).isEqualTo(reclaim.rowId()).isNotEqualTo(won.rowId());

		assertThat(this.ledger.recordSucceeded(won, "{\"ticketId\":\"T-1\"}")).isFalse();
		assertThat(this.ledger.find(request.key()).orElseThrow()).satisfies((entry) -> {
			assertThat(entry.id()).isEqualTo(reclaimed);
			assertThat(entry.status()).as("the other instance's call, still running").isEqualTo(LedgerStatus.ATTEMPTING);
		});
		assertThat(this.ledger.lateCompletions()).isEqualTo(1);
		assertThat(other.recordFailed(reclaim, "declined")).isTrue();
	}

	/**
	 * A row deleted by hand while its call runs, and its key claimed again on the same instance: the first call's
	 * outcome belongs to the row its claim won, which is gone, and never lands on the second claim's row.
	 */
	@ParameterizedTest(name = "the first call {0}")
	@ValueSource(strings = { "succeeded", "failed", "unknown" })
	void anOutcomeIsNeverWrittenToTheRowOfALaterClaimOfItsKeyOnTheSameInstance(String firstOutcome) {
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won first = won(this.ledger.claim(request));
		this.jdbc.update("DELETE FROM " + TABLE + " WHERE id = ?", first.rowId());
		Claim.Won second = won(this.ledger.claim(request));
		long secondRow = this.ledger.find(request.key()).orElseThrow().id();
		assertThat(second.rowId()).isEqualTo(secondRow).isNotEqualTo(first.rowId());

		assertThat(record(this.ledger, first, firstOutcome)).as("a late completion: its row is gone").isFalse();

		assertThat(this.ledger.find(request.key()).orElseThrow()).satisfies((entry) -> {
			assertThat(entry.id()).isEqualTo(secondRow);
			assertThat(entry.status()).as("the second call, still running").isEqualTo(LedgerStatus.ATTEMPTING);
		});
		assertThat(this.ledger.inFlight()).isEqualTo(1);
		assertThat(this.ledger.heartbeat()).as("the second call's row, beaten for").isEqualTo(1);
		assertThat(this.ledger.recordSucceeded(second, "{\"ticketId\":\"T-2\"}")).isTrue();
		assertThat(this.ledger.find(request.key()).orElseThrow()).satisfies((entry) -> {
			assertThat(entry.id()).isEqualTo(secondRow);
			assertThat(entry.status()).isEqualTo(LedgerStatus.SUCCEEDED);
			assertThat(entry.result()).isEqualToIgnoringWhitespace("{\"ticketId\":\"T-2\"}");
		});
		assertThat(this.ledger.lateCompletions()).isEqualTo(1);
		assertThat(this.ledger.lateSuccesses()).isZero();
		assertThat(this.ledger.inFlight()).isZero();
	}

	/** Records an outcome of the status named, with a result or an error as that status has. */
	static boolean record(CallLedger ledger, Claim.Won claim, String outcome) {
		return switch (LedgerStatus.ofColumnValue(outcome)) {
			case SUCCEEDED -> ledger.recordSucceeded(claim, "{\"ticketId\":\"T-1\"}");
			case FAILED -> ledger.recordFailed(claim, "java.lang.IllegalStateException: declined");
			case UNKNOWN -> ledger.recordUnknown(claim, "java.net.SocketTimeoutException: Read timed out");
			default -> throw new IllegalArgumentException(outcome);
		};
	}

	@Test
	void anOutcomeOfACallClaimedThroughAnotherLedgerObjectIsWrittenToTheRowItsClaimWon() {
		ClaimRequest request = request("r1", ARGUMENTS);
		JdbcLedger other = new JdbcLedger(this.dataSource, TABLE, Redaction.defaults());
		Claim.Won won = won(other.claim(request));

		assertThat(this.ledger.recordUnknown(won, "timed out")).isTrue();

		assertThat(this.ledger.find(request.key()).orElseThrow().status()).isEqualTo(LedgerStatus.UNKNOWN);
		assertThat(other.recordSucceeded(won, "1")).as("already recorded").isFalse();
	}

	@Test
	void aLateFailureAfterTheReconcilerResolvedTheRowIsReportedNotWritten() {
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won won = won(this.ledger.claim(request));
		LedgerEntry leased = this.ledger.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(1)).get(0);
		assertThat(this.ledger.resolveFailed(leased, "no ticket found")).isTrue();

		assertThat(this.ledger.recordFailed(won, "the ticket system refused")).isFalse();
		assertThat(this.ledger.recordUnknown(won, "timed out")).isFalse();

		LedgerEntry entry = this.ledger.find(request.key()).orElseThrow();
		assertThat(entry.status()).isEqualTo(LedgerStatus.FAILED);
		assertThat(entry.error()).isEqualTo("no ticket found");
		assertThat(this.ledger.lateCompletions()).isEqualTo(2);
		assertThat(this.ledger.lateSuccesses()).isZero();
	}

	@Test
	void aLateSuccessAfterTheReconcilerResolvedTheRowFailedIsWrittenOverThatFailure() {
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won won = won(this.ledger.claim(request));
		LedgerEntry leased = this.ledger.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(1)).get(0);
		assertThat(this.ledger.resolveFailed(leased, "no ticket found")).isTrue();
		assertThat(this.ledger.claim(request)).as("answered from the reconciler's failure meanwhile")
			.isInstanceOf(Claim.PreviousAttemptFailed.class);

		assertThat(this.ledger.recordSucceeded(won, "{\"ticketId\":\"T-1\"}")).isTrue();

		LedgerEntry entry = this.ledger.find(request.key()).orElseThrow();
		assertThat(entry.status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(entry.result()).isEqualToIgnoringWhitespace("{\"ticketId\":\"T-1\"}");
		assertThat(entry.error()).isNull();
		assertThat(this.ledger.lateSuccesses()).isEqualTo(1);
		assertThat(this.ledger.lateCompletions()).isZero();
		assertThat(this.ledger.claim(request)).isInstanceOfSatisfying(Claim.Replay.class,
				(replay) -> assertThat(replay.result()).contains("T-1"));
	}

	@Test
	void aLateSuccessLeavesWhatTheReconcilerFoundAndAFailureTheCallRecordedItself() {
		ClaimRequest found = request("r1", ARGUMENTS);
		Claim.Won foundClaim = won(this.ledger.claim(found));
		LedgerEntry leased = this.ledger.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(1)).get(0);
		assertThat(this.ledger.resolveSucceeded(leased, "{\"ticketId\":\"T-FOUND\"}")).isTrue();
		ClaimRequest failed = request("r2", ARGUMENTS);
		Claim.Won failedClaim = won(this.ledger.claim(failed));
		this.ledger.recordFailed(failedClaim, "refused");

		assertThat(this.ledger.recordSucceeded(foundClaim, "{\"ticketId\":\"T-LATE\"}")).isFalse();
		assertThat(this.ledger.recordSucceeded(failedClaim, "{\"ticketId\":\"T-LATE\"}")).isFalse();

		assertThat(this.ledger.find(found.key()).orElseThrow().result()).contains("T-FOUND");
		assertThat(this.ledger.find(failed.key()).orElseThrow().status()).as("only the claim holder records, once")
			.isEqualTo(LedgerStatus.FAILED);
		assertThat(this.ledger.lateCompletions()).isEqualTo(2);
	}

	@Test
	void theHeartbeatBeatsWhileTheCallsItProtectsHoldEveryOtherConnectionOfThePool() throws Exception {
		HikariConfig config = new HikariConfig();
		config.setDataSource(this.dataSource);
		config.setMaximumPoolSize(3);
		config.setConnectionTimeout(250);
		config.setPoolName("heartbeat-starved");
		List<Connection> heldByTools = new ArrayList<>();
		try (HikariDataSource pool = new HikariDataSource(config)) {
			JdbcLedger ledger = new JdbcLedger(pool, TABLE, Redaction.defaults());
			assertThat(ledger.heartbeat()).as("the first beat, at start, with nothing running").isZero();
			ClaimRequest request = request("r1", ARGUMENTS);
			assertThat(ledger.claim(request)).isInstanceOf(Claim.Won.class);
			// The running calls take every connection the pool will give.
			while (true) {
				try {
					heldByTools.add(pool.getConnection());
				}
				catch (SQLException exhausted) {
					break;
				}
			}
			assertThat(heldByTools).isNotEmpty();

			assertThat(ledger.heartbeat()).isEqualTo(1);
			assertThat(ledger.heartbeat()).isEqualTo(1);

			assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE heartbeat_at IS NOT NULL",
					Integer.class)).isEqualTo(1);
			for (Connection connection : heldByTools) {
				connection.close();
			}
			heldByTools.clear();
			ledger.close();
			assertThat(pool.getHikariPoolMXBean().getActiveConnections()).as("the heartbeat's connection given back")
				.isZero();
		}
		finally {
			for (Connection connection : heldByTools) {
				connection.close();
			}
		}
	}

	@Test
	void aLongErrorIsCut() {
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won won = won(this.ledger.claim(request));
		this.ledger.recordFailed(won, "x".repeat(10_000));

		assertThat(this.ledger.find(request.key()).orElseThrow().error()).hasSize(JdbcLedger.MAX_ERROR_LENGTH);
	}

	@Test
	void aLongErrorIsNeverCutBetweenTheHalvesOfACharacter() {
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won won = won(this.ledger.claim(request));
		// The bank's emoji, two UTF-16 units, straddles the limit.
		String error = "x".repeat(JdbcLedger.MAX_ERROR_LENGTH - 1) + "\ud83c\udfe6 and more";
		this.ledger.recordFailed(won, error);

		assertThat(this.ledger.find(request.key()).orElseThrow().error())
			.isEqualTo("x".repeat(JdbcLedger.MAX_ERROR_LENGTH - 1));
	}

	@Test
	void aClaimCommitsOnItsOwnEvenWhenTheCallersTransactionRollsBack() {
		ClaimRequest request = request("r1", ARGUMENTS);
		TransactionTemplate callers = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));

		callers.executeWithoutResult((status) -> {
			this.ledger.claim(request);
			status.setRollbackOnly();
		});

		assertThat(this.ledger.find(request.key())).isPresent();
	}

	// Users and secrets

	@Test
	void aClaimThatLosesToAnotherUsersRowLearnsNothingOfIt() {
		ClaimRequest mine = request("shared-run", "user-a", ARGUMENTS);
		Claim.Won mineClaim = won(this.ledger.claim(mine));
		this.ledger.recordSucceeded(mineClaim, "{\"ticketId\":\"T-SECRET\"}");

		assertThat(this.ledger.claim(request("shared-run", "user-b", ARGUMENTS)))
			.isEqualTo(new Claim.HeldByAnotherUser(mine.key()));
		assertThat(this.ledger.claim(request("shared-run", null, ARGUMENTS)))
			.isEqualTo(new Claim.HeldByAnotherUser(mine.key()));
	}

	@Test
	void aRowWithoutAUserIsAnsweredOnlyToCallsWithoutAUser() {
		ClaimRequest anonymous = request("r1", null, ARGUMENTS);
		Claim.Won anonymousClaim = won(this.ledger.claim(anonymous));
		this.ledger.recordSucceeded(anonymousClaim, "1");

		assertThat(this.ledger.claim(request("r1", null, ARGUMENTS))).isInstanceOf(Claim.Replay.class);
		assertThat(this.ledger.claim(request("r1", "user-a", ARGUMENTS))).isInstanceOf(Claim.HeldByAnotherUser.class);
	}

	@Test
	void secretsNeverReachTheTableWhileTheKeyCoversThem() {
		String arguments = """
				{"accountName": "Henderson", "password": "hunter2-PW",
				 "connection": {"apiKey": "sk-live-KEY", "region": "eu"},
				 "items": [{"ACCESS_TOKEN": "tok-TOKEN"}], "ssn": "078-05-SSN"}
				""";
		ClaimRequest request = new ClaimRequest(IdempotencyKeys.derive("open_ticket", arguments, "r1"), "r1", USER,
				"open_ticket", arguments, Set.of("ssn"));
		Claim.Won won = won(this.ledger.claim(request));
		this.ledger.recordFailed(won, "rejected");

		String everything = this.jdbc.queryForList("SELECT * FROM " + TABLE).toString();
		assertThat(everything).contains("Henderson", "eu", Redaction.REDACTED)
			.doesNotContain("hunter2-PW", "sk-live-KEY", "tok-TOKEN", "078-05-SSN");
		String otherPassword = arguments.replace("hunter2-PW", "other-PW");
		assertThat(IdempotencyKeys.derive("open_ticket", otherPassword, "r1")).isNotEqualTo(request.key());
	}

	@Test
	void argumentsThatAreNotJsonAreRefusedAndNothingIsWritten() {
		IdempotencyKey key = IdempotencyKeys.derive("t", "{}", "r1");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.ledger.claim(new ClaimRequest(key, "r1", USER, "t", "{\"a\":")))
			.withMessageContaining("not valid JSON");
		JdbcLedger redactingNothing = new JdbcLedger(this.dataSource, TABLE, Redaction.none());
		for (String notJson : List.of("{\"a\":", "{\"a\":1} x", "{\"a\":1}}", "", "{'a':1}")) {
			assertThatIllegalArgumentException().as(notJson)
				.isThrownBy(() -> redactingNothing.claim(new ClaimRequest(key, "r1", USER, "t", notJson)))
				.withMessageContaining("not valid JSON");
		}
		assertThat(this.ledger.find(key)).isEmpty();
	}

	// Replay counting

	@Test
	void replaysAreCountedInMemoryAndWrittenByAFlush() {
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won won = won(this.ledger.claim(request));
		this.ledger.recordSucceeded(won, "1");
		for (int i = 0; i < 5; i++) {
			this.ledger.claim(request);
		}
		this.ledger.claim(request("r1", "user-b", ARGUMENTS));
		this.ledger.claim(request("r2", ARGUMENTS));

		assertThat(this.ledger.find(request.key()).orElseThrow().replayCount()).isZero();
		assertThat(this.ledger.flushReplayCounts()).isEqualTo(1);
		assertThat(this.ledger.flushReplayCounts()).isZero();

		assertThat(this.ledger.find(request.key()).orElseThrow().replayCount()).isEqualTo(5);
		ReplayStatistics statistics = this.ledger.replayStatistics(Duration.ofDays(30));
		assertThat(statistics.executions()).isEqualTo(2);
		assertThat(statistics.replays()).isEqualTo(5);
		assertThat(statistics.replayRate()).isEqualTo(5.0 / 7);
	}

	@Test
	void closingTheLedgerFlushesItsReplayCounts() {
		ClaimRequest request = request("r1", ARGUMENTS);
		this.ledger.claim(request);
		this.ledger.claim(request);

		this.ledger.close();

		assertThat(this.ledger.find(request.key()).orElseThrow().replayCount()).isEqualTo(1);
	}

	@Test
	void replayStatisticsOfAnEmptyWindowAreZero() {
		ReplayStatistics statistics = this.ledger.replayStatistics(Duration.ofDays(30));
		assertThat(statistics.calls()).isZero();
		assertThat(statistics.replayRate()).isZero();
	}

	// The reconciler's queue

	@Test
	void staleRowsAreLeasedOldestFirstAndOnlyOnce() {
		List<ClaimRequest> requests = new ArrayList<>();
		List<Claim.Won> won = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			ClaimRequest request = request("r1", "{\"n\":" + i + "}");
			won.add(won(this.ledger.claim(request)));
			requests.add(request);
		}
		this.ledger.recordUnknown(won.get(1), "timed out");
		this.ledger.recordSucceeded(won.get(2), "1");
		this.ledger.recordFailed(won.get(3), "no");

		List<LedgerEntry> leased = this.ledger.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(5));

		assertThat(leased).extracting(LedgerEntry::key)
			.containsExactly(requests.get(0).key(), requests.get(1).key(), requests.get(4).key());
		assertThat(leased).allSatisfy((entry) -> {
			assertThat(entry.reconcileOwner()).isNotNull();
			assertThat(entry.reconcileAttempts()).isEqualTo(1);
		});
		assertThat(this.ledger.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(5))).isEmpty();
	}

	@Test
	void staleRowsRespectTheThresholdAndTheLimit() {
		for (int i = 0; i < 5; i++) {
			this.ledger.claim(request("r1", "{\"n\":" + i + "}"));
		}
		assertThat(this.ledger.leaseStale(Duration.ofHours(1), 10, Duration.ofMinutes(5))).isEmpty();
		assertThat(this.ledger.leaseStale(Duration.ZERO, 2, Duration.ofMinutes(5))).hasSize(2);
		assertThat(this.ledger.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(5))).hasSize(3);
	}

	@Test
	void aResolvedRowLeavesTheQueueWithItsOutcome() {
		ClaimRequest found = request("r1", "{\"n\":1}");
		ClaimRequest notFound = request("r1", "{\"n\":2}");
		this.ledger.claim(found);
		Claim.Won notFoundClaim = won(this.ledger.claim(notFound));
		this.ledger.recordUnknown(notFoundClaim, "timed out");
		Map<IdempotencyKey, LedgerEntry> leased = new java.util.HashMap<>();
		this.ledger.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(5)).forEach((e) -> leased.put(e.key(), e));

		assertThat(this.ledger.resolveSucceeded(leased.get(found.key()), "{\"ticketId\":\"T-7\"}")).isTrue();
		assertThat(this.ledger.resolveFailed(leased.get(notFound.key()), "no such ticket")).isTrue();

		assertThat(this.ledger.claim(found)).isInstanceOfSatisfying(Claim.Replay.class,
				(replay) -> assertThat(replay.result()).contains("T-7"));
		assertThat(this.ledger.claim(notFound)).isInstanceOf(Claim.PreviousAttemptFailed.class);
		assertThat(this.ledger.find(found.key()).orElseThrow().reconcileOwner()).isNull();
		assertThat(this.ledger.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(5))).isEmpty();
	}

	@Test
	void aPostponedRowWaitsOutItsPause() {
		ClaimRequest request = request("r1", ARGUMENTS);
		this.ledger.claim(request);
		LedgerEntry leased = this.ledger.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(5)).get(0);

		assertThat(this.ledger.postpone(leased, Duration.ofHours(1))).isTrue();

		assertThat(this.ledger.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(5))).isEmpty();
		assertThat(this.ledger.find(request.key()).orElseThrow().status()).isEqualTo(LedgerStatus.ATTEMPTING);
	}

	@Test
	void aPostponedRowReturnsToTheQueueAndTheOldLeaseIsVoid() {
		ClaimRequest request = request("r1", ARGUMENTS);
		this.ledger.claim(request);
		LedgerEntry leased = this.ledger.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(5)).get(0);

		assertThat(this.ledger.postpone(leased, Duration.ZERO)).isTrue();

		LedgerEntry again = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.ledger.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(5)), (rows) -> !rows.isEmpty())
			.get(0);
		assertThat(again.reconcileAttempts()).isEqualTo(2);
		assertThat(this.ledger.postpone(leased, Duration.ZERO)).isFalse();
		assertThat(this.ledger.resolveFailed(leased, "old lease")).isFalse();
	}

	@Test
	void aRowWhoseLeaseExpiredGoesToTheNextFetcherAndTheOldLeaseIsVoid() {
		ClaimRequest request = request("r1", ARGUMENTS);
		this.ledger.claim(request);
		LedgerEntry first = this.ledger.leaseStale(Duration.ZERO, 10, Duration.ofMillis(50)).get(0);

		LedgerEntry second = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.ledger.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(5)), (rows) -> !rows.isEmpty())
			.get(0);

		assertThat(second.reconcileOwner()).isNotEqualTo(first.reconcileOwner());
		assertThat(second.reconcileAttempts()).isEqualTo(2);
		assertThat(this.ledger.resolveFailed(first, "stale lease")).isFalse();
		assertThat(this.ledger.resolveSucceeded(second, "1")).isTrue();
	}

	@Test
	void twoConcurrentFetchersNeverReceiveTheSameRow() throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			for (int round = 0; round < 20; round++) {
				for (int i = 0; i < 30; i++) {
					this.ledger.claim(request("round-" + round, "{\"n\":" + i + "}"));
				}
				CyclicBarrier start = new CyclicBarrier(2);
				Callable<List<LedgerEntry>> fetch = () -> {
					start.await();
					return this.ledger.leaseStale(Duration.ZERO, 20, Duration.ofMinutes(5));
				};
				Future<List<LedgerEntry>> a = pool.submit(fetch);
				Future<List<LedgerEntry>> b = pool.submit(fetch);
				Set<Long> first = ids(a.get());
				Set<Long> second = ids(b.get());

				Set<Long> rest = ids(this.ledger.leaseStale(Duration.ZERO, 30, Duration.ofMinutes(5)));

				assertThat(Collections.disjoint(first, second)).as("%s and %s", first, second).isTrue();
				if (facts().skipLockedFillsTheLimit()) {
					assertThat(first.size() + second.size()).as("%s and %s", first, second).isEqualTo(30);
				}
				assertThat(Collections.disjoint(rest, first) && Collections.disjoint(rest, second)).isTrue();
				assertThat(first.size() + second.size() + rest.size()).isEqualTo(30);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	private static Set<Long> ids(List<LedgerEntry> entries) {
		Set<Long> ids = new HashSet<>();
		entries.forEach((e) -> ids.add(e.id()));
		return ids;
	}

	@Test
	void onlyLeasedRowsCanBeResolved() {
		ClaimRequest request = request("r1", ARGUMENTS);
		this.ledger.claim(request);
		LedgerEntry unleased = this.ledger.find(request.key()).orElseThrow();

		assertThatIllegalArgumentException().isThrownBy(() -> this.ledger.resolveFailed(unleased, "no"))
			.withMessageContaining("was not leased");
	}

	// An operator's view

	@Test
	void countsByStatusOldestUnsettledAndRowsAwaitingAHuman() {
		List<ClaimRequest> requests = new ArrayList<>();
		List<Claim.Won> won = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			ClaimRequest request = request("r1", "{\"n\":" + i + "}");
			won.add(won(this.ledger.claim(request)));
			requests.add(request);
		}
		this.ledger.recordSucceeded(won.get(0), "1");
		this.ledger.recordFailed(won.get(1), "no");
		this.ledger.recordUnknown(won.get(3), "timed out");

		assertThat(this.ledger.countByStatus()).containsEntry(LedgerStatus.SUCCEEDED, 1L)
			.containsEntry(LedgerStatus.FAILED, 1L)
			.containsEntry(LedgerStatus.ATTEMPTING, 1L)
			.containsEntry(LedgerStatus.UNKNOWN, 1L);
		assertThat(this.ledger.oldestUnsettled(10)).extracting(LedgerEntry::key)
			.containsExactly(requests.get(2).key(), requests.get(3).key());
		assertThat(this.ledger.countAwaitingHuman(1)).isZero();
		LedgerEntry leased = this.ledger.leaseStale(Duration.ZERO, 1, Duration.ofMinutes(5)).get(0);
		this.ledger.postpone(leased, Duration.ofDays(1));
		assertThat(this.ledger.countAwaitingHuman(1)).isEqualTo(1);
		assertThat(this.ledger.countAwaitingHuman(2)).isZero();
	}

	// Retention

	@Test
	void purgeDeletesSettledRowsInBatchesAndNeverUnsettledOnes() {
		for (int i = 0; i < 25; i++) {
			ClaimRequest request = request("r1", "{\"n\":" + i + "}");
			Claim.Won won = won(this.ledger.claim(request));
			switch (i % 5) {
				case 0, 1 -> this.ledger.recordSucceeded(won, "1");
				case 2 -> this.ledger.recordFailed(won, "no");
				case 3 -> this.ledger.recordUnknown(won, "timed out");
				default -> {
				}
			}
		}

		assertThat(this.ledger.purgeSettled(Duration.ofHours(1), 4)).as("younger than the retention").isZero();
		assertThat(this.ledger.purgeSettled(Duration.ZERO, 4)).isEqualTo(15);

		assertThat(this.jdbc.queryForList("SELECT status FROM " + TABLE, String.class))
			.hasSize(10)
			.containsOnly("unknown", "attempting");
	}

	@Test
	void retentionCountsFromWhenACallWasSettledNotFromWhenItStarted() {
		ClaimRequest settledLongAgo = request("r1", "{\"n\":1}");
		ClaimRequest settledNow = request("r1", "{\"n\":2}");
		Claim.Won settledLongAgoClaim = won(this.ledger.claim(settledLongAgo));
		this.ledger.recordSucceeded(settledLongAgoClaim, "1");
		Claim.Won settledNowClaim = won(this.ledger.claim(settledNow));
		// Both started two hours ago; the first was settled then, the second is settled only now (by a late
		// reconcile, or a person).
		this.jdbc.update("UPDATE " + TABLE + " SET started_at = started_at - INTERVAL '2' HOUR,"
				+ " finished_at = finished_at - INTERVAL '2' HOUR");
		this.ledger.recordSucceeded(settledNowClaim, "2");

		assertThat(this.ledger.purgeSettled(Duration.ofHours(1), 10)).isEqualTo(1);

		assertThat(this.ledger.find(settledLongAgo.key())).isEmpty();
		assertThat(this.ledger.find(settledNow.key()).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(this.ledger.claim(settledNow)).isInstanceOf(Claim.Replay.class);
	}

	// Many callers at once

	@Test
	void sixteenThreadsRacingOnSharedKeysGetExactlyOneWinnerPerKey() throws Exception {
		int threads = 16;
		int claimsPerThread = 250;
		List<ClaimRequest> requests = new ArrayList<>();
		for (int i = 0; i < 60; i++) {
			requests.add(request("fuzz", "{\"n\":" + i + "}"));
		}
		Map<IdempotencyKey, AtomicInteger> winners = new ConcurrentHashMap<>();
		Map<Class<?>, AtomicInteger> answers = new ConcurrentHashMap<>();
		CyclicBarrier start = new CyclicBarrier(threads);
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> running = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				running.add(pool.submit(() -> {
					start.await();
					ThreadLocalRandom random = ThreadLocalRandom.current();
					for (int i = 0; i < claimsPerThread; i++) {
						ClaimRequest request = requests.get(random.nextInt(requests.size()));
						Claim claim = this.ledger.claim(request);
						answers.computeIfAbsent(claim.getClass(), (c) -> new AtomicInteger()).incrementAndGet();
						if (claim instanceof Claim.Won won) {
							winners.computeIfAbsent(request.key(), (k) -> new AtomicInteger()).incrementAndGet();
							switch (random.nextInt(3)) {
								case 0 -> this.ledger.recordSucceeded(won, "1");
								case 1 -> this.ledger.recordFailed(won, "no");
								default -> this.ledger.recordUnknown(won, "timed out");
							}
						}
					}
					return null;
				}));
			}
			for (Future<?> future : running) {
				future.get();
			}
		}
		finally {
			pool.shutdownNow();
		}

		assertThat(winners).hasSize(requests.size());
		assertThat(winners.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE, Integer.class)).isEqualTo(requests.size());
		assertThat(answers.keySet()).doesNotContain(Claim.HeldByAnotherUser.class);
		assertThat(answers.values().stream().mapToInt(AtomicInteger::get).sum()).isEqualTo(threads * claimsPerThread);
		this.ledger.flushReplayCounts();
		assertThat(this.jdbc.queryForObject("SELECT SUM(replay_count) FROM " + TABLE, Long.class))
			.isEqualTo((long) threads * claimsPerThread - requests.size());
	}

	@ParameterizedTest(name = "{0} threads")
	@ValueSource(ints = { 8, 32 })
	void threadsClaimingAndSettlingDistinctKeysNeverDeadlock(int threads) throws Exception {
		int rounds = 15;
		int callsPerThread = 10;
		inRounds(threads, rounds, (run, thread) -> {
			// Several calls of each thread in flight at once, as under load: each outcome is written while
			// other threads' rows are attempting and new claims are arriving.
			List<Claim.Won> claimed = new ArrayList<>();
			for (int i = 0; i < callsPerThread; i++) {
				ClaimRequest request = request(run, "{\"thread\":" + thread + ",\"n\":" + i + "}");
				claimed.add(won(this.ledger.claim(request)));
			}
			for (int i = 0; i < claimed.size(); i++) {
				Claim.Won won = claimed.get(i);
				boolean recorded = switch (i % 3) {
					case 0 -> this.ledger.recordSucceeded(won, "{\"n\":" + i + "}");
					case 1 -> this.ledger.recordFailed(won, "declined");
					default -> this.ledger.recordUnknown(won, null);
				};
				assertThat(recorded).isTrue();
			}
		});

		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE status <> 'attempting'",
				Integer.class)).isEqualTo(rounds * threads * callsPerThread);
	}

	@ParameterizedTest(name = "{0} threads")
	@ValueSource(ints = { 8, 32 })
	void threadsClaimingAndSettlingDistinctKeysInTheirOwnTransactionsNeverDeadlock(int threads) throws Exception {
		int rounds = 15;
		int callsPerThread = 10;
		TransactionTemplate callers = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		callers.setIsolationLevel(TransactionTemplate.ISOLATION_READ_COMMITTED);
		CallLedger joined = this.ledger.inCallersTransaction();
		inRounds(threads, rounds, (run, thread) -> {
			for (int i = 0; i < callsPerThread; i++) {
				ClaimRequest request = request(run, "{\"thread\":" + thread + ",\"n\":" + i + "}");
				callers.executeWithoutResult((status) -> {
					Claim.Won won = won(joined.claim(request));
					assertThat(joined.recordSucceeded(won, "{}")).isTrue();
				});
			}
		});

		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE status = 'succeeded'",
				Integer.class)).isEqualTo(rounds * threads * callsPerThread);
	}

	/** What one thread does in one round, given the round's run and the thread's number. */
	private interface RoundBody {

		void run(String run, int thread) throws Exception;

	}

	/** Runs the body on that many threads at once, released together, round after round. */
	private static void inRounds(int threads, int rounds, RoundBody body) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < rounds; round++) {
				String run = "round-" + threads + "-" + round;
				CyclicBarrier start = new CyclicBarrier(threads);
				List<Future<?>> running = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					int thread = t;
					running.add(pool.submit(() -> {
						start.await();
						body.run(run, thread);
						return null;
					}));
				}
				for (Future<?> future : running) {
					future.get();
				}
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	// Settled outcomes answered from memory

	private JdbcLedger cachingLedger(DataSource dataSource) {
		return new JdbcLedger(dataSource, TABLE, Redaction.defaults(), new ReplayCache(100, Duration.ofMinutes(10)));
	}

	@Test
	void aRepeatOfASucceededCallThisInstanceHasReadIsAnsweredWithoutTheDatabaseAndCountedAsAReplay() {
		CountingDataSource counting = new CountingDataSource(this.dataSource);
		JdbcLedger ledger = cachingLedger(counting);
		ClaimRequest succeeded = request("r1", "{\"n\":1}");
		Claim.Won succeededClaim = won(ledger.claim(succeeded));
		ledger.recordSucceeded(succeededClaim, "{\"ticketId\":\"T-7\"}");
		ledger.claim(succeeded);
		counting.reset();

		for (int i = 0; i < 3; i++) {
			assertThat(ledger.claim(succeeded)).isInstanceOfSatisfying(Claim.Replay.class,
					(replay) -> assertThat(replay.result()).isEqualToIgnoringWhitespace("{\"ticketId\":\"T-7\"}"));
		}

		assertThat(counting.roundTrips()).as("%s", counting.statements()).isZero();
		assertThat(ledger.flushReplayCounts()).isEqualTo(1);
		assertThat(this.jdbc.queryForObject("SELECT replay_count FROM " + TABLE, Integer.class)).isEqualTo(4);
	}

	@Test
	void aRepeatOfAFailedCallIsReadFromTheTableEveryTimeForALateSuccessMayOverturnTheFailure() {
		CountingDataSource counting = new CountingDataSource(this.dataSource);
		JdbcLedger ledger = cachingLedger(counting);
		ClaimRequest failed = request("r1", "{\"n\":2}");
		Claim.Won failedClaim = won(ledger.claim(failed));
		ledger.recordFailed(failedClaim, "declined");
		ledger.claim(failed);
		counting.reset();

		for (int i = 0; i < 3; i++) {
			assertThat(ledger.claim(failed)).isInstanceOfSatisfying(Claim.PreviousAttemptFailed.class,
					(previous) -> assertThat(previous.error()).isEqualTo("declined"));
		}

		assertThat(counting.roundTrips()).as("%s", counting.statements()).isEqualTo(3L * facts().replayRoundTrips());
		assertThat(ledger.flushReplayCounts()).isEqualTo(1);
		assertThat(this.jdbc.queryForObject("SELECT replay_count FROM " + TABLE, Integer.class)).isEqualTo(4);
	}

	@Test
	void aLateSuccessOverAReconciledFailureIsReplayedByAnotherInstanceThatHadReadTheFailure() {
		JdbcLedger executing = cachingLedger(this.dataSource);
		JdbcLedger other = cachingLedger(this.dataSource);
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won won = won(executing.claim(request));
		LedgerEntry leased = other.leaseStale(Duration.ZERO, 10, Duration.ofMinutes(1)).get(0);
		assertThat(other.resolveFailed(leased, "no ticket found")).isTrue();
		assertThat(other.claim(request)).as("the other instance reads the reconciler's failure")
			.isInstanceOf(Claim.PreviousAttemptFailed.class);

		assertThat(executing.recordSucceeded(won, "{\"ticketId\":\"T-1\"}")).isTrue();

		assertThat(other.claim(request)).as("the other instance's next repeat").isInstanceOfSatisfying(
				Claim.Replay.class, (replay) -> assertThat(replay.result()).isEqualToIgnoringWhitespace(
						"{\"ticketId\":\"T-1\"}"));
		assertThat(executing.claim(request)).isInstanceOf(Claim.Replay.class);
		assertThat(executing.lateSuccesses()).isEqualTo(1);
	}

	@Test
	void aRepeatByAnotherUserIsRefusedFromMemoryAsFromTheDatabase() {
		JdbcLedger ledger = cachingLedger(this.dataSource);
		ClaimRequest mine = request("r1", USER, ARGUMENTS);
		Claim.Won mineClaim = won(ledger.claim(mine));
		ledger.recordSucceeded(mineClaim, "{}");
		assertThat(ledger.claim(mine)).isInstanceOf(Claim.Replay.class);

		ClaimRequest theirs = request("r1", "user-b", ARGUMENTS);

		assertThat(theirs.key()).isEqualTo(mine.key());
		assertThat(ledger.claim(theirs)).isEqualTo(new Claim.HeldByAnotherUser(theirs.key()));
	}

	@Test
	void anUnsettledRowIsNeverAnsweredFromMemory() {
		JdbcLedger ledger = cachingLedger(this.dataSource);
		JdbcLedger executing = new JdbcLedger(this.dataSource, TABLE, Redaction.defaults());
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won won = won(executing.claim(request));
		assertThat(ledger.claim(request)).isInstanceOf(Claim.InProgress.class);
		executing.recordUnknown(won, "timed out");
		assertThat(ledger.claim(request)).isInstanceOf(Claim.InProgress.class);

		LedgerEntry leased = executing.leaseStale(Duration.ZERO, 1, Duration.ofMinutes(5)).get(0);
		executing.resolveSucceeded(leased, "{\"ticketId\":\"T-9\"}");

		assertThat(ledger.claim(request)).isInstanceOfSatisfying(Claim.Replay.class,
				(replay) -> assertThat(replay.result()).isEqualToIgnoringWhitespace("{\"ticketId\":\"T-9\"}"));
	}

	@Test
	void aRowReadInTheCallersTransactionIsNotKeptForItMayRollBack() {
		JdbcLedger ledger = cachingLedger(this.dataSource);
		CallLedger joined = ledger.inCallersTransaction();
		TransactionTemplate callers = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		callers.setIsolationLevel(TransactionTemplate.ISOLATION_READ_COMMITTED);
		ClaimRequest request = request("r1", ARGUMENTS);

		callers.executeWithoutResult((status) -> {
			Claim.Won won = won(joined.claim(request));
			joined.recordSucceeded(won, "{}");
			assertThat(joined.claim(request)).isInstanceOf(Claim.Replay.class);
			status.setRollbackOnly();
		});

		assertThat(ledger.claim(request)).isInstanceOf(Claim.Won.class);
	}

	@Test
	void purgingForgetsWhatIsKeptSoAPurgedKeyRunsAgain() {
		JdbcLedger ledger = cachingLedger(this.dataSource);
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won won = won(ledger.claim(request));
		ledger.recordSucceeded(won, "{}");
		assertThat(ledger.claim(request)).isInstanceOf(Claim.Replay.class);

		assertThat(ledger.purgeSettled(Duration.ZERO, 10)).isEqualTo(1);

		assertThat(ledger.claim(request)).isInstanceOf(Claim.Won.class);
	}

	// What each path costs in round trips

	@Test
	void anExecutedCallTakesTwoRoundTripsAndAReplayNoMoreThanThatWithNoStatementPreparedOnTheServer() {
		CountingDataSource counting = new CountingDataSource(this.dataSource);
		JdbcLedger ledger = new JdbcLedger(counting, TABLE, Redaction.defaults());
		ClaimRequest request = request("r1", USER, ARGUMENTS);
		ClaimRequest withoutUser = request("r2", null, ARGUMENTS);
		counting.reset();

		Claim.Won won = won(ledger.claim(request));
		ledger.recordSucceeded(won, null);
		Claim.Won withoutUserClaim = won(ledger.claim(withoutUser));
		ledger.recordFailed(withoutUserClaim, "declined");

		assertThat(counting.roundTrips()).as("%s", counting.statements()).isEqualTo(4);
		counting.reset();

		assertThat(ledger.claim(request)).isInstanceOf(Claim.Replay.class);
		assertThat(ledger.claim(withoutUser)).isInstanceOf(Claim.PreviousAttemptFailed.class);

		assertThat(counting.roundTrips()).as("%s", counting.statements()).isEqualTo(2L * facts().replayRoundTrips());
		assertThat(counting.parameterMetadataRequests()).isZero();
	}

	// A tool whose calls are mostly repeats

	/** Whether a statement is a read: on Galera a read that waits for the cluster's writes is wrapped in one. */
	private static boolean aRead(String statement) {
		return statement.startsWith("SELECT")
				|| (statement.startsWith("SET STATEMENT wsrep_sync_wait") && statement.contains(" FOR SELECT "));
	}

	/** Claims of the tool that find their row, as many as it takes for its calls to be read first. */
	private static void repeatUntilReadFirst(JdbcLedger ledger, ClaimRequest repeated) {
		for (int i = 0; i < RepeatedTools.WINDOW; i++) {
			assertThat(ledger.claim(repeated)).isNotInstanceOf(Claim.Won.class);
		}
	}

	@Test
	void aRepeatOfAToolWhoseCallsAreMostlyRepeatsIsOnePlainReadOnEveryDatabase() {
		CountingDataSource counting = new CountingDataSource(this.dataSource);
		JdbcLedger ledger = new JdbcLedger(counting, TABLE, Redaction.defaults());
		ClaimRequest succeeded = request("r1", ARGUMENTS);
		ClaimRequest failed = request("r2", ARGUMENTS);
		ledger.recordSucceeded(won(ledger.claim(succeeded)), "\"T-7\"");
		ledger.recordFailed(won(ledger.claim(failed)), "declined");
		repeatUntilReadFirst(ledger, succeeded);
		counting.reset();

		for (int i = 0; i < 5; i++) {
			assertThat(ledger.claim(succeeded)).isInstanceOfSatisfying(Claim.Replay.class,
					(replay) -> assertThat(replay.result()).isEqualTo("\"T-7\""));
			assertThat(ledger.claim(failed)).isInstanceOfSatisfying(Claim.PreviousAttemptFailed.class,
					(previous) -> assertThat(previous.error()).isEqualTo("declined"));
		}

		assertThat(counting.roundTrips()).as("%s", counting.statements()).isEqualTo(10);
		assertThat(counting.statements()).allMatch(LedgerContractTests::aRead);
		assertThat(counting.errors()).isZero();
		ledger.flushReplayCounts();
		assertThat(this.jdbc.queryForObject("SELECT SUM(replay_count) FROM " + TABLE, Long.class))
			.isEqualTo(RepeatedTools.WINDOW + 10L);
	}

	@Test
	void aNewCallOfAToolWhoseCallsAreMostlyRepeatsIsReadThenClaimedAndTheToolIsClaimedFirstAgainOnceItsCallsExecute() {
		CountingDataSource counting = new CountingDataSource(this.dataSource);
		JdbcLedger ledger = new JdbcLedger(counting, TABLE, Redaction.defaults());
		ClaimRequest repeated = request("r1", ARGUMENTS);
		ledger.recordSucceeded(won(ledger.claim(repeated)), null);
		repeatUntilReadFirst(ledger, repeated);
		int executedUntilClaimedFirst = RepeatedTools.WINDOW - RepeatedTools.READ_FIRST_FROM + 1;
		for (int i = 0; i < executedUntilClaimedFirst; i++) {
			counting.reset();
			Claim.Won won = won(ledger.claim(request("new-" + i, ARGUMENTS)));
			// The read that finds nothing, and the claim that wins.
			assertThat(counting.roundTrips()).as("%s", counting.statements()).isEqualTo(2);
			assertThat(counting.statements().get(0)).matches(LedgerContractTests::aRead);
			ledger.recordSucceeded(won, null);
		}
		counting.reset();

		Claim.Won claimedFirst = won(ledger.claim(request("claimed-first", ARGUMENTS)));

		assertThat(counting.roundTrips()).as("%s", counting.statements()).isEqualTo(1);
		assertThat(counting.statements().get(0)).matches((statement) -> !aRead(statement));
		ledger.recordSucceeded(claimedFirst, null);
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE, Integer.class))
			.isEqualTo(executedUntilClaimedFirst + 2);
	}

	@Test
	void threadsRacingOnNewKeysOfAToolWhoseCallsAreMostlyRepeatsGetExactlyOneWinnerPerKey() throws Exception {
		CountingDataSource counting = new CountingDataSource(this.dataSource);
		JdbcLedger ledger = new JdbcLedger(counting, TABLE, Redaction.defaults());
		ClaimRequest repeated = request("warm", ARGUMENTS);
		ledger.recordSucceeded(won(ledger.claim(repeated)), null);
		repeatUntilReadFirst(ledger, repeated);
		counting.reset();
		int threads = 16;
		Map<IdempotencyKey, AtomicInteger> winners = new ConcurrentHashMap<>();
		Map<IdempotencyKey, AtomicInteger> answered = new ConcurrentHashMap<>();

		// Every claim is read first. Each round's key has one winner; every other claim of it, answered by its read
		// or by a claim after a read that found nothing, finds the winner's row: the tool stays read first.
		inRounds(threads, 40, (run, thread) -> {
			ClaimRequest shared = request(run, ARGUMENTS);
			Claim claim = ledger.claim(shared);
			answered.computeIfAbsent(shared.key(), (k) -> new AtomicInteger()).incrementAndGet();
			if (claim instanceof Claim.Won won) {
				winners.computeIfAbsent(shared.key(), (k) -> new AtomicInteger()).incrementAndGet();
				ledger.recordSucceeded(won, null);
			}
			else {
				assertThat(claim).isInstanceOfAny(Claim.InProgress.class, Claim.Replay.class);
			}
		});

		assertThat(answered).hasSize(40);
		assertThat(winners).hasSize(40);
		assertThat(winners.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE, Integer.class)).isEqualTo(41);
		// Every claim read first: a read for each, before any claim statement of it.
		assertThat(counting.statements()).filteredOn(LedgerContractTests::aRead)
			.hasSizeGreaterThanOrEqualTo(threads * 40);
	}

	@Test
	void aLostClaimIsNoErrorOnTheServer() {
		CountingDataSource counting = new CountingDataSource(this.dataSource);
		JdbcLedger ledger = new JdbcLedger(counting, TABLE, Redaction.defaults());
		ClaimRequest settled = request("r1", ARGUMENTS);
		ClaimRequest attempting = request("r2", ARGUMENTS);
		Claim.Won settledClaim = won(ledger.claim(settled));
		ledger.recordSucceeded(settledClaim, "{\"ticketId\":\"T-7\"}");
		ledger.claim(attempting);
		counting.reset();

		assertThat(ledger.claim(settled)).isInstanceOf(Claim.Replay.class);
		assertThat(ledger.claim(attempting)).isInstanceOf(Claim.InProgress.class);

		assertThat(counting.errors()).as("statements answered with an error among %s", counting.statements()).isZero();
	}

	@Test
	void leasingStaleRowsTakesAFixedNumberOfRoundTripsHoweverManyRowsItLeases() {
		CountingDataSource counting = new CountingDataSource(this.dataSource);
		JdbcLedger ledger = new JdbcLedger(counting, TABLE, Redaction.defaults());
		for (int i = 0; i < 103; i++) {
			this.ledger.claim(request("r1", "{\"n\":" + i + "}"));
		}
		counting.reset();

		assertThat(ledger.leaseStale(Duration.ZERO, 3, Duration.ofMinutes(5))).hasSize(3);
		long forThree = counting.roundTrips();
		counting.reset();
		assertThat(ledger.leaseStale(Duration.ZERO, 100, Duration.ofMinutes(5))).hasSize(100);

		assertThat(counting.roundTrips()).as("%s", counting.statements()).isEqualTo(forThree).isEqualTo(facts().leaseRoundTrips());
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE
				+ " WHERE reconcile_owner IS NOT NULL AND reconcile_attempts = 1", Integer.class)).isEqualTo(103);
	}

	@Test
	void aReplayAnswersWithTheStoredRowAndTheClaimsOwnKeyRunToolAndArguments() {
		ClaimRequest request = request("r1", ARGUMENTS);
		Claim.Won won = won(this.ledger.claim(request));
		this.ledger.recordSucceeded(won, "{\"ticketId\":\"T-7\"}");
		LedgerEntry stored = this.ledger.find(request.key()).orElseThrow();

		Claim.Replay replay = (Claim.Replay) this.ledger.claim(request);

		assertThat(replay.entry()).usingRecursiveComparison().ignoringFields("arguments").isEqualTo(stored);
		assertThat(replay.entry().arguments()).contains("Henderson Industrial").contains("seal failure");
	}

}
