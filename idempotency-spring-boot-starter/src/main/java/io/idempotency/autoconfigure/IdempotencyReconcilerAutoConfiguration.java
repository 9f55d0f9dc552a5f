package io.idempotency.autoconfigure;

import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.reconcile.Approvals;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.ReconcilerSettings;
import io.idempotency.reconcile.Settlements;
import io.idempotency.ledger.ReconcileQueue;
import io.idempotency.ledger.SettlementQueue;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/**
 * The reconciler, run by {@link IdempotencyMaintenance} every {@code idempotency.reconciler.interval}, and the
 * operators' {@link Settlements} of the calls it hands to a human, with its settings. Its schedule expires the
 * calls that waited too long for a person's approval ({@link IdempotencyApprovalsAutoConfiguration}).
 */
@AutoConfiguration(after = IdempotentToolsAutoConfiguration.class)
@ConditionalOnBean({ ReconcileQueue.class, IdempotentToolRegistry.class })
@ConditionalOnBooleanProperty(name = "idempotency.reconciler.enabled", matchIfMissing = true)
public class IdempotencyReconcilerAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	Reconciler idempotencyReconciler(ReconcileQueue ledger, IdempotentToolRegistry tools,
			ObjectProvider<JsonMapper> jsonMapper, IdempotencyProperties properties) {
		return new Reconciler(ledger, tools, jsonMapper.getIfAvailable(JsonMapper::new),
				settingsOf(properties.getReconciler()));
	}

	/** The reconciler's settings, or a start that fails naming the property out of its bounds. */
	static ReconcilerSettings settingsOf(IdempotencyProperties.Reconciler settings) {
		IdempotencyProperties.positive("idempotency.reconciler.stale-after", settings.getStaleAfter());
		settings.getStaleAfterByTool()
			.forEach((tool, after) -> IdempotencyProperties.positive("idempotency.reconciler.stale-after-by-tool." + tool,
					after));
		IdempotencyProperties.atLeast("idempotency.reconciler.batch-size", settings.getBatchSize(), 1, "");
		IdempotencyProperties.positive("idempotency.reconciler.lease", settings.getLease());
		IdempotencyProperties.positive("idempotency.reconciler.initial-backoff", settings.getInitialBackoff());
		IdempotencyProperties.positive("idempotency.reconciler.max-backoff", settings.getMaxBackoff());
		if (settings.getMaxBackoff().compareTo(settings.getInitialBackoff()) < 0) {
			throw new IllegalStateException("idempotency.reconciler.max-backoff (" + settings.getMaxBackoff()
					+ ") must not be shorter than idempotency.reconciler.initial-backoff (" + settings.getInitialBackoff()
					+ ")");
		}
		IdempotencyProperties.atLeast("idempotency.reconciler.max-attempts", settings.getMaxAttempts(), 1, "");
		return new ReconcilerSettings(settings.getStaleAfter(), settings.getStaleAfterByTool(), settings.getBatchSize(),
				settings.getLease(), settings.getInitialBackoff(), settings.getMaxBackoff(), settings.getMaxAttempts());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(SettlementQueue.class)
	Settlements idempotencySettlements(SettlementQueue ledger, IdempotentToolRegistry tools,
			ObjectProvider<JsonMapper> jsonMapper, Reconciler reconciler) {
		return new Settlements(ledger, tools, jsonMapper.getIfAvailable(JsonMapper::new), reconciler.settings());
	}


}
