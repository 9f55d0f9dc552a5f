package io.idempotency.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.scheduling.ScheduledTasksEndpointAutoConfiguration;
import org.springframework.boot.actuate.scheduling.ScheduledTasksEndpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.task.ThreadPoolTaskSchedulerCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ledger's maintenance runs on a scheduler built with Spring Boot's builder, as Boot's own features do:
 * the application's scheduler customizers and shutdown settings apply, its tasks are listed by
 * {@code /actuator/scheduledtasks}, and it keeps a thread for each task whatever the application's pool size.
 */
class MaintenanceSchedulingTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				TaskSchedulingAutoConfiguration.class, IdempotencyLedgerAutoConfiguration.class,
				EndpointAutoConfiguration.class, ScheduledTasksEndpointAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=scheduledtasks",
				"idempotency.retention.period=30d");

	@Test
	void itsTasksAreListedByTheScheduledTasksEndpoint() {
		this.runner.run((context) -> {
			ScheduledTasksEndpoint.ScheduledTasksDescriptor described = context.getBean(ScheduledTasksEndpoint.class)
				.scheduledTasks();

			assertThat(described.getFixedDelay()).extracting((task) -> task.getRunnable().getTarget())
				.containsExactlyInAnyOrder("idempotency heartbeat", "idempotency replay counts",
						"idempotency retention");
		});
	}

	@Test
	void theApplicationsSchedulerCustomizersApplyAndEachTaskKeepsAThreadOfItsOwn() {
		List<ThreadPoolTaskScheduler> customized = new CopyOnWriteArrayList<>();
		this.runner.withPropertyValues("spring.task.scheduling.pool.size=1")
			.withBean(ThreadPoolTaskSchedulerCustomizer.class, () -> customized::add)
			.run((context) -> {
				assertThat(customized).hasSize(1);
				ThreadPoolTaskScheduler scheduler = customized.get(0);
				assertThat(scheduler.getThreadNamePrefix()).isEqualTo("idempotency-");
				assertThat(scheduler.getScheduledThreadPoolExecutor().getCorePoolSize()).isEqualTo(IdempotencyMaintenance.THREADS);
				assertThat(scheduler.isDaemon()).isTrue();
			});
	}

	@Test
	void withoutBootsSchedulingItRunsOnADefaultBuilder() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataSourceAutoConfiguration.class, IdempotencyLedgerAutoConfiguration.class))
			.run((context) -> {
				IdempotencyMaintenance maintenance = context.getBean(IdempotencyMaintenance.class);
				assertThat(maintenance.isRunning()).isTrue();
				assertThat(maintenance.getScheduledTasks()).extracting((task) -> task.getTask().getRunnable().toString())
					.contains("idempotency heartbeat", "idempotency replay counts");
			});
	}

}
