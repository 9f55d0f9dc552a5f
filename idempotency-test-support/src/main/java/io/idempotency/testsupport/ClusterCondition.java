package io.idempotency.testsupport;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Enables a cluster's test classes where the cluster can be started, and says why not elsewhere; in CI (the
 * {@code CI} environment variable set), a cluster that cannot be started fails the classes instead, so that CI
 * never passes by skipping them. PgBouncer's test classes are enabled the same way.
 */
abstract class ClusterCondition implements ExecutionCondition {

	/** The JUnit tag of every test class that runs on a cluster. */
	static final String TAG = "clusters";

	abstract String unavailableReason();

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		String reason = unavailableReason();
		if (reason == null) {
			return ConditionEvaluationResult.enabled("the cluster can be started here");
		}
		if (System.getenv("CI") != null) {
			throw new IllegalStateException(reason + ". CI must run the tests on database clusters.");
		}
		return ConditionEvaluationResult.disabled(reason);
	}

	static final class Galera extends ClusterCondition {

		@Override
		String unavailableReason() {
			return GaleraCluster.unavailableReason();
		}

	}

	static final class Bouncer extends ClusterCondition {

		@Override
		String unavailableReason() {
			return PgBouncer.unavailableReason();
		}

	}

	static final class Patroni extends ClusterCondition {

		@Override
		String unavailableReason() {
			return PatroniCluster.unavailableReason();
		}

	}

}
