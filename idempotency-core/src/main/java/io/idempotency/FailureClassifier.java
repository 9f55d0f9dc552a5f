package io.idempotency;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;

import io.idempotency.ledger.LedgerStatus;

/**
 * Tells, from the exception a tool threw, whether its effect may have happened ({@code unknown}: a
 * timeout, an I/O error, a lost connection) or definitely did not ({@code failed}).
 */
final class FailureClassifier {

	/** Exceptions after which the effect may have happened, wherever they stand in the cause chain. */
	static final Set<String> DEFAULT_UNKNOWN = Set.of(IOException.class.getName(), TimeoutException.class.getName(),
			"org.springframework.web.client.ResourceAccessException",
			"org.springframework.dao.TransientDataAccessResourceException",
			"org.springframework.dao.QueryTimeoutException", "java.sql.SQLTransientConnectionException",
			"java.sql.SQLRecoverableException");

	private final Set<String> unknown;

	FailureClassifier(Set<String> unknownExceptionTypes) {
		this.unknown = Set.copyOf(unknownExceptionTypes);
	}

	LedgerStatus classify(Throwable failure, ToolDescriptor tool) {
		if (causedBy(failure, tool.unknownOn())) {
			return LedgerStatus.UNKNOWN;
		}
		for (Class<? extends Throwable> type : tool.failedOn()) {
			if (type.isInstance(failure)) {
				return LedgerStatus.FAILED;
			}
		}
		if (failure instanceof Error) {
			return LedgerStatus.UNKNOWN;
		}
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			for (Class<?> type = cause.getClass(); type != null; type = type.getSuperclass()) {
				if (this.unknown.contains(type.getName())) {
					return LedgerStatus.UNKNOWN;
				}
			}
		}
		return LedgerStatus.FAILED;
	}

	private static boolean causedBy(Throwable failure, List<Class<? extends Throwable>> types) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			for (Class<? extends Throwable> type : types) {
				if (type.isInstance(cause)) {
					return true;
				}
			}
		}
		return false;
	}

}
