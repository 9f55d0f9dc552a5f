package io.idempotency.autoconfigure;

import java.time.Duration;

import io.idempotency.ledger.JdbcLedger;
import io.idempotency.reconcile.Approvals;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/**
 * The {@link Approvals} of the calls that wait for a person's approval, wherever the JDBC ledger is: with the
 * reconciler switched off too, a person can decide (the reconciler's schedule, where it runs, expires the calls
 * that waited longer than {@code idempotency.approval.expire-after}).
 */
@AutoConfiguration(after = IdempotentToolsAutoConfiguration.class, before = IdempotencyReconcilerAutoConfiguration.class)
@ConditionalOnBean(JdbcLedger.class)
public class IdempotencyApprovalsAutoConfiguration {

	/**
	 * The approvals of the JDBC ledger: each decision and expiry is published as an application event
	 * ({@code ApprovalDecidedEvent}) for the application to resume the call's run.
	 */
	@Bean
	@ConditionalOnMissingBean
	Approvals idempotencyApprovals(JdbcLedger ledger, IdempotencyProperties properties,
			ApplicationEventPublisher publisher) {
		return new Approvals(ledger.approvals(), expireAfterOf(properties.getApproval()), publisher::publishEvent);
	}

	/** How long a call waits for approval, or a start that fails naming the property. */
	static Duration expireAfterOf(IdempotencyProperties.Approval approval) {
		return IdempotencyProperties.positive("idempotency.approval.expire-after", approval.getExpireAfter());
	}

}
