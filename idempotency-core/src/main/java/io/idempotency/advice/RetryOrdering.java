package io.idempotency.advice;

import java.util.Set;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;

/**
 * Puts the idempotency advice outside Spring's retries ({@code @Retryable}, whose post-processor places its
 * own advice first) on a tool bean, so that a tool's retries happen within one claim.
 */
final class RetryOrdering {

	private static final Set<String> RETRY_ADVICE_PACKAGES = Set.of("org.springframework.resilience.",
			"org.springframework.retry.");

	private RetryOrdering() {
	}

	static void putOutsideRetries(Advised advised, Advisor ours) {
		Advisor[] advisors = advised.getAdvisors();
		int at = advised.indexOf(ours);
		for (int i = 0; i < at; i++) {
			String advice = advisors[i].getAdvice().getClass().getName();
			if (RETRY_ADVICE_PACKAGES.stream().anyMatch(advice::startsWith) && !advised.isFrozen()) {
				advised.removeAdvisor(at);
				advised.addAdvisor(i, ours);
				return;
			}
		}
	}

}
