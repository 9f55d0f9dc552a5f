package io.idempotency.test;

import java.util.Set;

import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.Redaction;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The {@link InMemoryLedger} of a test annotated {@link AutoConfigureInMemoryLedger}: applied before the
 * starter's JDBC ledger, which then backs off. Not applied unless a test asks for it.
 */
@AutoConfiguration(beforeName = "io.idempotency.autoconfigure.IdempotencyLedgerAutoConfiguration")
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
public class InMemoryLedgerAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(CallLedger.class)
	InMemoryLedger inMemoryIdempotencyLedger(Environment environment) {
		return new InMemoryLedger(redactionOf(Binder.get(environment)));
	}

	/** What the starter's JDBC ledger would redact, from the same properties. */
	private static Redaction redactionOf(Binder binder) {
		Set<String> names = binder.bind("idempotency.redaction.names", Bindable.setOf(String.class))
			.orElse(Redaction.DEFAULT_NAMES);
		boolean likelyCredentials = binder.bind("idempotency.redaction.likely-credentials", Boolean.class)
			.orElse(true);
		return likelyCredentials ? Redaction.likelyCredentialsAnd(names) : Redaction.of(names);
	}

}
