package io.idempotency.autoconfigure.crash;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import io.idempotency.IdempotentInvocation;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.autoconfigure.IdempotencyLedgerAutoConfiguration;
import io.idempotency.autoconfigure.IdempotencyApprovalsAutoConfiguration;
import io.idempotency.autoconfigure.IdempotencyReconcilerAutoConfiguration;
import io.idempotency.autoconfigure.IdempotentToolsAutoConfiguration;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * An application with the starter and two tools whose effect is a row in {@code crash_effects}: the
 * instance that {@link ProcessCrashContractTests} kills. Run as a process of its own, it reads one command
 * from its standard input, {@code CALL <tool> <run> <item> <point>}, makes that call, and stops dead at the
 * named point: it prints {@code AT <point>} and waits there for its SIGKILL. The points: before and after
 * the claim statement, during the effect (written, not committed), after the effect, before and after the
 * outcome statement, or {@code STEP-n}: before the n-th statement the call sends to the database (the claim,
 * the effect and the outcome are three).
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
		JdbcTemplateAutoConfiguration.class, AopAutoConfiguration.class,
		JacksonAutoConfiguration.class, IdempotencyLedgerAutoConfiguration.class, IdempotentToolsAutoConfiguration.class,
		IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class })
public class CrashingApplication {

	static final String EFFECTS = "crash_effects";

	/** The protocol's lines start with this; anything else on standard output is not the protocol's. */
	static final String PROTOCOL = "crash: ";

	/** Where this process stops dead; none in an instance that is not to be killed. */
	static volatile String stopAt = "";

	private static final AtomicInteger statements = new AtomicInteger();

	private static PrintStream protocol = System.out;

	public static void main(String[] args) throws Exception {
		protocol = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
		// Nothing but the protocol on standard output.
		System.setOut(System.err);
		ConfigurableApplicationContext context = start(args);
		CrashTools tools = context.getBean(CrashTools.class);
		protocol.println(PROTOCOL + "READY");
		BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String[] command = input.readLine().split(" ");
		stopAt = command[4];
		statements.set(0);
		try {
			String result = RunContext.supply(new Run(command[2], "crash-user"), () -> CrashTools.call(tools, command[1], command[3]));
			protocol.println(PROTOCOL + "DONE " + result);
		}
		catch (RuntimeException ex) {
			protocol.println(PROTOCOL + "FAILED " + ex.getClass().getName());
		}
		// Killed here if not before: the point was not on the call's path.
		new CountDownLatch(1).await();
	}

	/** The application, as the test's own "restarted" instance starts it too. */
	public static ConfigurableApplicationContext start(String... args) {
		return new SpringApplicationBuilder(CrashingApplication.class).web(WebApplicationType.NONE)
			.bannerMode(org.springframework.boot.Banner.Mode.OFF)
			.logStartupInfo(false)
			.run(args);
	}

	/** Stops dead at the point, if it is this process's. */
	static void reach(String point) {
		if (!point.isEmpty() && point.equals(stopAt)) {
			protocol.println(PROTOCOL + "AT " + point);
			try {
				new CountDownLatch(1).await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Bean
	CrashTools crashTools(JdbcTemplate jdbc, PlatformTransactionManager transactions) {
		return new CrashTools(jdbc, new TransactionTemplate(transactions));
	}

	/** Puts the claim and outcome points, and the statement steps, on the application's DataSource. */
	@Bean
	static BeanPostProcessor crashPoints(org.springframework.core.env.Environment environment) {
		String table = environment.getProperty("idempotency.jdbc.table-name", "tool_audit").toLowerCase(Locale.ROOT);
		// PostgreSQL's claim is an INSERT inside a WITH statement; MariaDB's an INSERT IGNORE.
		Pattern claim = Pattern.compile("insert\\s+(ignore\\s+)?into\\s+" + Pattern.quote(table) + "\\b");
		return new BeanPostProcessor() {
			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				if (bean instanceof DataSource dataSource && !(bean instanceof Proxy)) {
					return withPoints(dataSource, table, claim);
				}
				return bean;
			}
		};
	}

	private static DataSource withPoints(DataSource target, String table, Pattern claim) {
		return (DataSource) Proxy.newProxyInstance(CrashingApplication.class.getClassLoader(),
				new Class<?>[] { DataSource.class }, invoking(target, (method, args) -> {
					Object result = method.invoke(target, args);
					return (result instanceof Connection connection) ? withPoints(connection, table, claim) : result;
				}));
	}

	private static Connection withPoints(Connection target, String table, Pattern claim) {
		return (Connection) Proxy.newProxyInstance(CrashingApplication.class.getClassLoader(),
				new Class<?>[] { Connection.class }, invoking(target, (method, args) -> {
					Object result = method.invoke(target, args);
					if (result instanceof PreparedStatement statement && args[0] instanceof String sql) {
						String lower = sql.toLowerCase(Locale.ROOT);
						return withPoints(statement, claim.matcher(lower).find(),
								lower.startsWith("update " + table + " set status"));
					}
					return result;
				}));
	}

	private static PreparedStatement withPoints(PreparedStatement target, boolean claim, boolean outcome) {
		return (PreparedStatement) Proxy.newProxyInstance(CrashingApplication.class.getClassLoader(),
				new Class<?>[] { PreparedStatement.class }, invoking(target, (method, args) -> {
					if (!method.getName().startsWith("execute")) {
						return method.invoke(target, args);
					}
					if (Thread.currentThread().getName().equals("main")) {
						reach("STEP-" + statements.incrementAndGet());
					}
					reach(claim ? "BEFORE_CLAIM" : outcome ? "BEFORE_OUTCOME" : "");
					Object result = method.invoke(target, args);
					reach(claim ? "AFTER_CLAIM" : outcome ? "AFTER_OUTCOME" : "");
					return result;
				}));
	}

	private static InvocationHandler invoking(Object target, Invocation invocation) {
		return (proxy, method, args) -> {
			try {
				return invocation.invoke(method, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
		};
	}

	@FunctionalInterface
	private interface Invocation {

		Object invoke(java.lang.reflect.Method method, Object[] args) throws Throwable;

	}

	/** The two tools: an effect committed on its own, reconciled by its reference; and a transactional one. */
	public static class CrashTools {

		private final JdbcTemplate jdbc;

		private final TransactionTemplate transactions;

		CrashTools(JdbcTemplate jdbc, TransactionTemplate transactions) {
			this.jdbc = jdbc;
			this.transactions = transactions;
		}

		/** Calls a tool through the bean's proxy, {@code tools}, as a caller does. */
		static String call(CrashTools tools, String tool, String item) {
			return switch (tool) {
				case "book_slot" -> tools.bookSlot(item);
				case "book_slot_in_transaction" -> tools.bookSlotInTransaction(item);
				default -> throw new IllegalArgumentException("No tool " + tool);
			};
		}

		@IdempotentTool(name = "book_slot", reconcile = "findSlot")
		public String bookSlot(String item) {
			String reference = IdempotentInvocation.current().key().externalReference("s");
			this.transactions.executeWithoutResult((status) -> effect(reference, item));
			reach("AFTER_EFFECT");
			return reference;
		}

		Reconciliation<String> findSlot(IdempotencyKey key) {
			String reference = key.externalReference("s");
			return (effects(reference) > 0) ? Reconciliation.found(reference) : Reconciliation.notFound();
		}

		@IdempotentTool(name = "book_slot_in_transaction", transactional = true)
		public String bookSlotInTransaction(String item) {
			String reference = IdempotentInvocation.current().key().externalReference("s");
			effect(reference, item);
			reach("AFTER_EFFECT");
			return reference;
		}

		private void effect(String reference, String item) {
			this.jdbc.update("INSERT INTO " + EFFECTS + " (reference, item) VALUES (?, ?)", reference, item);
			reach("DURING_EFFECT");
		}

		int effects(String reference) {
			return this.jdbc.queryForObject("SELECT COUNT(*) FROM " + EFFECTS + " WHERE reference = ?", Integer.class,
					reference);
		}

	}

}
