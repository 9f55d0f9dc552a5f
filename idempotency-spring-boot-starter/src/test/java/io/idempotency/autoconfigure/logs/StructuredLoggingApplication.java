package io.idempotency.autoconfigure.logs;

import java.net.SocketTimeoutException;
import java.time.Duration;

import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.autoconfigure.IdempotencyLedgerAutoConfiguration;
import io.idempotency.autoconfigure.IdempotencyApprovalsAutoConfiguration;
import io.idempotency.autoconfigure.IdempotencyReconcilerAutoConfiguration;
import io.idempotency.autoconfigure.IdempotentToolsAutoConfiguration;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
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

import static org.awaitility.Awaitility.await;

/**
 * An application with the starter, run by {@link StructuredLoggingTest} as a process of its own so that
 * Spring Boot configures its logging as it does for any application (the tests' own logback configuration is
 * not on its class path). Two calls of {@value #RUN} end with a timeout, their outcomes unknown; the reconciler
 * then resolves {@code send_notice} and hands {@code ring_bell} to a human, and the application stops.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
		JdbcTemplateAutoConfiguration.class, AopAutoConfiguration.class, JacksonAutoConfiguration.class,
		IdempotencyLedgerAutoConfiguration.class, IdempotentToolsAutoConfiguration.class,
		IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class })
public class StructuredLoggingApplication {

	static final String RUN = "run-structured-logs";

	public static void main(String[] args) throws Exception {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(StructuredLoggingApplication.class)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.run(args);
		Desk desk = context.getBean(Desk.class);
		try {
			RunContext.call(new Run(RUN, null), () -> desk.sendNotice("ops@example.com"));
		}
		catch (SocketTimeoutException ex) {
			// as the tool threw it
		}
		try {
			RunContext.call(new Run(RUN, null), () -> desk.ringBell("front"));
		}
		catch (SocketTimeoutException ex) {
			// as the tool threw it
		}
		Reconciler reconciler = context.getBean(Reconciler.class);
		await().atMost(Duration.ofMinutes(1)).until(() -> {
			reconciler.reconcile();
			return reconciler.reconciledSucceeded() == 1 && reconciler.awaitingHuman() == 1;
		});
		System.exit(SpringApplication.exit(context));
	}

	@Bean
	Desk desk() {
		return new Desk();
	}

	/** Tools whose calls time out after their effect may have happened. */
	public static class Desk {

		@IdempotentTool(name = "send_notice", reconcile = "findNotice")
		public String sendNotice(String to) throws SocketTimeoutException {
			throw new SocketTimeoutException("Read timed out");
		}

		Reconciliation<String> findNotice(IdempotencyKey key, String to) {
			return Reconciliation.found("notice to " + to);
		}

		@IdempotentTool(name = "ring_bell", reconcile = "askTheBell")
		public String ringBell(String bell) throws SocketTimeoutException {
			throw new SocketTimeoutException("Read timed out");
		}

		Reconciliation<String> askTheBell(IdempotencyKey key) {
			throw new IllegalStateException("the bell does not answer");
		}

	}

}
