package io.idempotency;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotency.QuoteTools.Quote;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tool calls on virtual threads, as an application with {@code spring.threads.virtual.enabled} makes them:
 * a thousand calls at once through a pool of ten connections. No call pins its carrier thread while it
 * waits (for a connection, on the database, on a twin), and each key executes once. From Java 24, where
 * waiting inside a monitor no longer pins, so that what the recording sees is the call path's own.
 */
@EnabledForJreRange(min = JRE.JAVA_24)
class VirtualThreadCallsTest {

	private static final String PINNED = "jdk.VirtualThreadPinned";

	private static final int KEYS = 100;

	private static final int CALLS_PER_KEY = 10;

	private static final int CONNECTIONS = 10;

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aThousandCallsOnVirtualThreadsThroughTenConnectionsPinNoCarrierAndExecuteOncePerKey(TestDatabase database)
			throws Exception {
		try (HikariDataSource pool = poolOfTen(TestDatabases.dataSource(database))) {
			try (AnnotationConfigApplicationContext context = toolsOn(pool, DatabaseFacts.of(database))) {
				QuoteTools tools = context.getBean(QuoteTools.class);
				// Classes load on first use, and a virtual thread that waits for a class another one loads pins its
				// carrier: a first round warms them up, as an application's first calls do, and a repeat of a call
				// that succeeded is replayed, whose stored result is read back (in the round, the repeats may all
				// come while their calls run, and be answered in progress). It runs under a recording too: the
				// recording's own tracer of exceptions initializes when the first exception is made under one.
				pinnedWhile(() -> {
					assertThat(allAnswered(calls(tools, "warm-up"))).hasSize(KEYS * CALLS_PER_KEY);
					assertThat(RunContext.supply(new Run("warm-up", "rep-1"),
							() -> tools.draftQuote("account-0", "SKU-4411", 1))).isInstanceOf(Quote.class);
				});

				List<RecordedEvent> pinned = pinnedWhile(() -> assertThat(allAnswered(calls(tools, "virtual-run")))
					.hasSize(KEYS * CALLS_PER_KEY)
					.allSatisfy((answer) -> assertThat(answer).isInstanceOfAny(Quote.class, ToolCallInProgressException.class)));

				assertThat(pinned).as("carrier threads pinned by the calls:%n%s", stacks(pinned)).isEmpty();
				assertThat(tools.quotes()).as("quotes drafted, one per key in each run").isEqualTo(2 * KEYS);
				assertThat(new JdbcTemplate(pool).queryForObject("SELECT COUNT(*) FROM "
						+ IdempotentToolContractTests.LEDGER_TABLE + " WHERE status = 'succeeded'", Integer.class))
					.isEqualTo(2 * KEYS);
			}
			LedgerSchema.drop(pool, IdempotentToolContractTests.LEDGER_TABLE);
			new JdbcTemplate(pool).execute("DROP TABLE quotes");
		}
	}

	/** {@code CALLS_PER_KEY} calls of each of {@code KEYS} keys in the run, in an order that interleaves the keys. */
	private static List<Callable<Object>> calls(QuoteTools tools, String runId) {
		List<Callable<Object>> calls = new ArrayList<>();
		for (int call = 0; call < KEYS * CALLS_PER_KEY; call++) {
			String account = "account-" + (call % KEYS);
			calls.add(() -> RunContext.supply(new Run(runId, "rep-1"), () -> tools.draftQuote(account, "SKU-4411", 1)));
		}
		return calls;
	}

	/** The recording this test reads sees a carrier pinned: a virtual thread waiting in a class's initializer. */
	@Test
	void theRecordingSeesACarrierPinnedByAVirtualThreadThatWaitsInAClassInitializer() throws Exception {
		List<RecordedEvent> pinned = pinnedWhile(() -> {
			Thread initializing = startVirtualThread(WaitsWhileInitialized::touch);
			await().until(() -> initializing.getState() == Thread.State.WAITING);
			INITIALIZER_GATE.countDown();
			initializing.join();
		});

		assertThat(pinned).isNotEmpty();
	}

	// Outside the class it opens: this thread must not wait for that class's initialization.
	static final CountDownLatch INITIALIZER_GATE = new CountDownLatch(1);

	static final class WaitsWhileInitialized {

		static {
			try {
				INITIALIZER_GATE.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		static void touch() {
		}

	}

	interface Work {

		void run() throws Exception;

	}

	/** The pinned events recorded while the work ran, however short. */
	private static List<RecordedEvent> pinnedWhile(Work work) throws Exception {
		Path file = Files.createTempFile("virtual-threads", ".jfr");
		try (Recording recording = new Recording()) {
			recording.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
			recording.start();
			work.run();
			recording.stop();
			recording.dump(file);
			return RecordingFile.readAllEvents(file).stream()
				.filter((event) -> event.getEventType().getName().equals(PINNED))
				.toList();
		}
		finally {
			Files.deleteIfExists(file);
		}
	}

	private static String stacks(List<RecordedEvent> events) {
		return events.stream()
			.map((event) -> (event.getStackTrace() == null) ? "(no stack)" : event.getStackTrace().getFrames().stream()
				.limit(12)
				.map(RecordedFrame::getMethod)
				.map((method) -> method.getType().getName() + "." + method.getName())
				.collect(Collectors.joining("\n    ", "  ", "")))
			.collect(Collectors.joining("\n"));
	}

	/** Every call's answer, each on a virtual thread of its own, all started at once. */
	private static List<Object> allAnswered(List<Callable<Object>> calls) throws Exception {
		CountDownLatch start = new CountDownLatch(1);
		List<Object> answers = new ArrayList<>();
		ExecutorService threads = virtualThreadPerTask();
		try {
			List<Future<Object>> futures = new ArrayList<>();
			for (Callable<Object> call : calls) {
				futures.add(threads.submit(() -> {
					start.await();
					try {
						return call.call();
					}
					catch (RuntimeException ex) {
						return ex;
					}
				}));
			}
			start.countDown();
			for (Future<Object> future : futures) {
				answers.add(future.get());
			}
		}
		finally {
			threads.shutdownNow();
		}
		return answers;
	}

	// The project compiles for Java 17: the Java 21 API is reached by reflection.
	private static ExecutorService virtualThreadPerTask() throws Exception {
		return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
	}

	private static Thread startVirtualThread(Runnable task) throws Exception {
		Method start = Thread.class.getMethod("startVirtualThread", Runnable.class);
		return (Thread) start.invoke(null, task);
	}

	private static HikariDataSource poolOfTen(DataSource shared) {
		HikariDataSource sharedPool = (HikariDataSource) shared;
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(sharedPool.getJdbcUrl());
		config.setUsername(sharedPool.getUsername());
		config.setPassword(sharedPool.getPassword());
		config.setMaximumPoolSize(CONNECTIONS);
		config.setPoolName("virtual-threads");
		return new HikariDataSource(config);
	}

	private static AnnotationConfigApplicationContext toolsOn(DataSource dataSource, DatabaseFacts facts) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		LedgerSchema.drop(dataSource, IdempotentToolContractTests.LEDGER_TABLE);
		LedgerSchema.create(dataSource, IdempotentToolContractTests.LEDGER_TABLE);
		jdbc.execute("DROP TABLE IF EXISTS quotes");
		jdbc.execute("CREATE TABLE quotes (id " + facts.identityColumn() + ", account_name VARCHAR(200) NOT NULL,"
				+ " sku VARCHAR(50) NOT NULL, quantity INT NOT NULL, reference VARCHAR(40) NOT NULL)");
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(DataSource.class, () -> new DelegatingDataSource(dataSource));   // closed by the test
		context.register(IdempotentToolContractTests.Tools.class);
		context.refresh();
		return context;
	}

}
