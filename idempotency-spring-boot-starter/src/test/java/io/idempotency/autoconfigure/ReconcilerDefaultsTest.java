package io.idempotency.autoconfigure;

import io.idempotency.reconcile.ReconcilerSettings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The starter's reconciler defaults are the core's: one set of defaults, written out for the IDE metadata. */
class ReconcilerDefaultsTest {

	@Test
	void theStartersReconcilerDefaultsAreTheCores() {
		IdempotencyProperties.Reconciler properties = new IdempotencyProperties().getReconciler();
		ReconcilerSettings core = ReconcilerSettings.defaults();

		assertThat(properties.getStaleAfter()).isEqualTo(core.staleAfter());
		assertThat(properties.getStaleAfterByTool()).isEqualTo(core.staleAfterByTool());
		assertThat(properties.getBatchSize()).isEqualTo(core.batchSize());
		assertThat(properties.getLease()).isEqualTo(core.lease());
		assertThat(properties.getInitialBackoff()).isEqualTo(core.initialBackoff());
		assertThat(properties.getMaxBackoff()).isEqualTo(core.maxBackoff());
		assertThat(properties.getMaxAttempts()).isEqualTo(core.maxAttempts());
	}

}
