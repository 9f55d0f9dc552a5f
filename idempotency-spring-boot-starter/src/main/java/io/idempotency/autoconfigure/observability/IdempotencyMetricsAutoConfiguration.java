package io.idempotency.autoconfigure.observability;

import io.idempotency.reconcile.Reconciler;
import io.idempotency.autoconfigure.IdempotencyReconcilerAutoConfiguration;
import io.idempotency.ledger.JdbcLedger;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** Micrometer meters of idempotent calls, after Spring Boot's meter registries. */
@AutoConfiguration(after = IdempotencyReconcilerAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ JdbcLedger.class, MeterRegistry.class })
public class IdempotencyMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	IdempotencyMetrics idempotencyMetrics(MeterRegistry registry, JdbcLedger ledger,
			ObjectProvider<Reconciler> reconciler) {
		return new IdempotencyMetrics(registry, ledger, reconciler);
	}

}
