package io.idempotency.autoconfigure;

import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.ReconcilerSettings;
import io.idempotency.ledger.JdbcLedger;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The reconciler, run by {@link IdempotencyMaintenance} every {@code idempotency.reconciler.interval}. */
@AutoConfiguration(after = IdempotentToolsAutoConfiguration.class)
@ConditionalOnBean({ JdbcLedger.class, IdempotentToolRegistry.class })
@ConditionalOnBooleanProperty(name = "idempotency.reconciler.enabled", matchIfMissing = true)
public class IdempotencyReconcilerAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	Reconciler idempotencyReconciler(JdbcLedger ledger, IdempotentToolRegistry tools,
			ObjectProvider<JsonMapper> jsonMapper, IdempotencyProperties properties) {
		IdempotencyProperties.Reconciler settings = properties.getReconciler();
		return new Reconciler(ledger, tools, jsonMapper.getIfAvailable(JsonMapper::new),
				new ReconcilerSettings(settings.getStaleAfter(), settings.getStaleAfterByTool(), settings.getBatchSize(),
						settings.getLease(), settings.getInitialBackoff(), settings.getMaxBackoff(),
						settings.getMaxAttempts()));
	}

}
