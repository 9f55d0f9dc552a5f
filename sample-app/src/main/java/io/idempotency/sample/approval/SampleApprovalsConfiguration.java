package io.idempotency.sample.approval;

import java.time.Duration;

import io.idempotency.ledger.JdbcLedger;
import io.idempotency.reconcile.Approvals;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/**
 * The approvals a person gives or refuses on the page's operator panel, made from the ledger, unless the
 * application already has them. A decision is published as an application event: {@link ResumableRuns} hears it.
 * A call nobody decided on expires after a day, at the page's "Run the reconciler now".
 */
@AutoConfiguration(afterName = { "io.idempotency.autoconfigure.IdempotencyLedgerAutoConfiguration",
		"io.idempotency.autoconfigure.IdempotentToolsAutoConfiguration",
		"io.idempotency.autoconfigure.IdempotencyReconcilerAutoConfiguration" })
public class SampleApprovalsConfiguration {

	/** How long a call waits for a person's decision before it expires. */
	static final Duration EXPIRE_AFTER = Duration.ofHours(24);

	@Bean
	@ConditionalOnBean(JdbcLedger.class)
	@ConditionalOnMissingBean(Approvals.class)
	Approvals sampleApprovals(JdbcLedger ledger, ApplicationEventPublisher publisher) {
		return new Approvals(ledger.approvals(), EXPIRE_AFTER, publisher::publishEvent);
	}

}
