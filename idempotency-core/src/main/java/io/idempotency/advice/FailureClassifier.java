package io.idempotency.advice;

import java.io.IOException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;

import io.idempotency.ledger.DatabaseErrors;
import io.idempotency.ledger.LedgerStatus;

import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Tells, from the exception a tool threw, whether its effect may have happened ({@code unknown}: a
 * timeout, an I/O error, a lost connection, a gateway's 502, 503 or 504, an interrupted or cancelled wait) or
 * definitely did not
 * ({@code failed}).
 */
final class FailureClassifier {

	/** Exceptions after which the effect may have happened, wherever they stand in the cause chain. */
	static final Set<String> DEFAULT_UNKNOWN = Set.of(IOException.class.getName(), TimeoutException.class.getName(),
			"org.springframework.web.client.ResourceAccessException",
			"org.springframework.dao.TransientDataAccessResourceException",
			"org.springframework.dao.QueryTimeoutException", "java.sql.SQLTransientConnectionException",
			"java.sql.SQLRecoverableException");

	/**
	 * Exceptions that carry an HTTP response's status ({@code getStatusCode().value()}): Spring's
	 * {@code RestClient}, {@code RestTemplate} and {@code WebClient} errors. Named, because neither module
	 * is required.
	 */
	static final Set<String> HTTP_RESPONSE_EXCEPTIONS = Set.of("org.springframework.web.client.RestClientResponseException",
			"org.springframework.web.reactive.function.client.WebClientResponseException");

	/**
	 * Bad gateway, service unavailable, gateway timeout: a proxy or gateway answered in the upstream's stead,
	 * which may have gone on and taken effect.
	 */
	static final Set<Integer> GATEWAY_STATUSES = Set.of(502, 503, 504);

	private static final List<Class<? extends Throwable>> INTERRUPTED_OR_CANCELLED = List.of(InterruptedException.class,
			CancellationException.class);

	private final Set<String> unknown;

	private final List<Class<?>> configured;

	/**
	 * @param configuredUnknownTypes more exception classes after which the effect may have happened
	 */
	FailureClassifier(Collection<Class<? extends Throwable>> configuredUnknownTypes) {
		this.unknown = DEFAULT_UNKNOWN;
		this.configured = List.copyOf(configuredUnknownTypes);
	}

	/**
	 * Resolves exception class names as configured, each with its nested classes written either way
	 * ({@code HttpServerErrorException.GatewayTimeout} or {@code HttpServerErrorException$GatewayTimeout}).
	 * @throws IllegalArgumentException naming every name that is not a {@code Throwable} on the class path
	 */
	static List<Class<? extends Throwable>> resolve(Collection<String> classNames, ClassLoader classLoader) {
		List<Class<? extends Throwable>> types = new ArrayList<>();
		List<String> problems = new ArrayList<>();
		for (String name : classNames) {
			if (name == null || name.isBlank()) {
				problems.add("a blank name");
				continue;
			}
			Class<?> type;
			try {
				type = ClassUtils.forName(name.strip(), classLoader);
			}
			catch (ClassNotFoundException | LinkageError ex) {
				problems.add("'" + name + "' is not a class on the class path");
				continue;
			}
			if (!Throwable.class.isAssignableFrom(type)) {
				problems.add("'" + name + "' is not a Throwable");
				continue;
			}
			@SuppressWarnings("unchecked")
			Class<? extends Throwable> throwable = (Class<? extends Throwable>) type;
			types.add(throwable);
		}
		if (!problems.isEmpty()) {
			throw new IllegalArgumentException("The exceptions after which an effect may have happened"
					+ " (idempotency.unknown-exceptions) name what no failure can match: " + String.join("; ", problems)
					+ ". Name exception classes, nested ones as Outer.Inner or Outer$Inner");
		}
		return List.copyOf(types);
	}

	LedgerStatus classify(Throwable failure, ToolDescriptor tool) {
		if (causedBy(failure, tool.unknownOn())) {
			return LedgerStatus.UNKNOWN;
		}
		// A wait that was interrupted or cancelled says nothing of the work it waited for, whatever failedOn
		// names (CancellationException is an IllegalStateException), as an asynchronous call's cancellation.
		if (causedBy(failure, INTERRUPTED_OR_CANCELLED)) {
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
		for (Throwable cause : DatabaseErrors.causeChain(failure)) {
			for (Class<?> type = cause.getClass(); type != null; type = type.getSuperclass()) {
				if (this.unknown.contains(type.getName())) {
					return LedgerStatus.UNKNOWN;
				}
				if (HTTP_RESPONSE_EXCEPTIONS.contains(type.getName()) && GATEWAY_STATUSES.contains(httpStatus(cause))) {
					return LedgerStatus.UNKNOWN;
				}
			}
			for (Class<?> type : this.configured) {
				if (type.isInstance(cause)) {
					return LedgerStatus.UNKNOWN;
				}
			}
		}
		return LedgerStatus.FAILED;
	}

	/** The status of an HTTP response exception, or -1 where it cannot be read. */
	private static int httpStatus(Throwable exception) {
		Method getStatusCode = ReflectionUtils.findMethod(exception.getClass(), "getStatusCode");
		if (getStatusCode == null) {
			return -1;
		}
		try {
			ReflectionUtils.makeAccessible(getStatusCode);
			Object status = getStatusCode.invoke(exception);
			Method value = (status != null) ? ReflectionUtils.findMethod(status.getClass(), "value") : null;
			if (value == null) {
				return -1;
			}
			// The status may be of a class that is not public (Spring's DefaultHttpStatusCode).
			ReflectionUtils.makeAccessible(value);
			return (value.invoke(status) instanceof Integer code) ? code : -1;
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			return -1;
		}
	}

	private static boolean causedBy(Throwable failure, List<Class<? extends Throwable>> types) {
		for (Throwable cause : DatabaseErrors.causeChain(failure)) {
			for (Class<? extends Throwable> type : types) {
				if (type.isInstance(cause)) {
					return true;
				}
			}
		}
		return false;
	}

}
