package io.idempotency.advice;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.idempotency.IdempotentFunction;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.Redaction;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.ClassUtils;

/**
 * The start-up checks of an application's idempotent tools. The application does not start while a tool
 * would misbehave at call time: no reconcile method, a reconcile method that does not fit or would be given
 * redacted values, no parameter names, an asynchronous result, a method a proxy cannot intercept, a bean that
 * is not proxied by class, two tools of one name, a transactional tool that cannot run in a transaction of the
 * ledger's {@code DataSource}, or no ledger at all. Every problem is collected, and the message names each.
 */
final class ToolChecks {

	private final IdempotentToolAdvisor advisor;

	private final Supplier<CallLedger> ledger;

	private final List<String> problems = new ArrayList<>();

	/** Where each tool name is declared, as {@code Class.method}. */
	private final Map<String, String> toolNames = new HashMap<>();

	ToolChecks(IdempotentToolAdvisor advisor, Supplier<CallLedger> ledger) {
		this.advisor = advisor;
		this.ledger = ledger;
	}

	/** Describes a tool method and checks it. */
	ToolDescriptor tool(Method method, Class<?> targetClass) {
		ToolDescriptor tool = ToolDescriptor.describe(method, targetClass, this.problems);
		String where = ClassUtils.getShortName(targetClass) + "." + method.getName();
		String other = this.toolNames.putIfAbsent(tool.name(), where);
		if (other != null && !other.equals(where)) {
			this.problems.add("Tools " + other + " and " + where + " are both named '" + tool.name()
					+ "': their calls would share keys. Give each a distinct name");
		}
		checkRedaction(tool, where);
		checkTransactional("Tool", tool, where);
		return tool;
	}

	/** Describes an idempotent function and checks it; {@code where} says where it is declared. */
	ToolDescriptor function(IdempotentFunction<?> function, String where) {
		ToolDescriptor tool = ToolDescriptor.of(function, this.problems);
		String other = this.toolNames.putIfAbsent(tool.name(), where);
		if (other != null) {
			this.problems.add("Function '" + tool.name() + "' (" + where + ") has the name of another tool (" + other
					+ "): their calls would share keys. Give each a distinct name");
		}
		checkTransactional("Function", tool, where);
		return tool;
	}

	/** A transactional tool needs a ledger and a transaction manager on one {@code DataSource}. */
	private void checkTransactional(String kind, ToolDescriptor tool, String where) {
		if (!tool.transactional()) {
			return;
		}
		TransactionalCalls transactional = this.advisor.interceptor().calls().transactional();
		if (!transactional.supported()) {
			this.problems.add(kind + " '" + tool.name() + "' (" + where + ") is transactional, but "
					+ transactional.problem());
		}
	}

	/** Notes a name already taken, by a tool declared {@code where}. */
	void taken(String name, String where) {
		this.toolNames.put(name, where);
	}

	/** Notes the problem of tools declared without one ledger to claim their calls in. */
	void ledger(String[] ledgers, boolean unique) {
		if (!this.toolNames.isEmpty() && ledgers.length > 1 && !unique) {
			this.problems.add("Tools " + this.toolNames.keySet().stream().sorted().toList() + " are idempotent, but"
					+ " there are several ledgers " + Arrays.toString(ledgers) + " and none is primary, so their calls"
					+ " could not be claimed in one. Keep one, or mark the one to claim calls in with @Primary");
		}
		if (!this.toolNames.isEmpty() && ledgers.length == 0) {
			this.problems.add("Tools " + this.toolNames.keySet().stream().sorted().toList() + " are idempotent, but"
					+ " there is no JdbcLedger to claim their calls in, so they would run without deduplication."
					+ " Declare one; with the Spring Boot starter, the ledger is made on the application's DataSource:"
					+ " where there are several, mark the ledger's with @IdempotencyDataSource or one with @Primary");
		}
	}

	/** Stops the start, naming every problem found, if there is one. */
	void throwIfAny() {
		throwIfAny("Idempotent tools are misconfigured, so the application does not start");
	}

	/** Stops what is being done, saying what in the words given, naming every problem found, if there is one. */
	void throwIfAny(String what) {
		if (!this.problems.isEmpty()) {
			throw new IllegalStateException(what + ":\n - " + String.join("\n - ", this.problems));
		}
	}

	/**
	 * A reconcile method receives stored arguments; one whose parameter the ledger's redaction removes
	 * would receive {@value Redaction#REDACTED} instead of the value.
	 */
	private void checkRedaction(ToolDescriptor tool, String where) {
		if (tool.reconcile() == null) {
			return;
		}
		CallLedger ledger = this.ledger.get();
		Redaction redaction = (ledger != null) ? ledger.redaction() : null;
		for (Parameter parameter : tool.reconcile().getParameters()) {
			boolean stored = !IdempotencyKey.class.equals(parameter.getType())
					&& !IdempotencyKeys.isContextParameter(parameter);
			if (!stored || redaction == null || !parameter.isNamePresent()) {
				continue;
			}
			if (redaction.redacts(parameter.getName())) {
				this.problems.add("Tool '" + tool.name() + "' (" + where + ") has reconcile method "
						+ tool.reconcile().getName() + " which takes '" + parameter.getName() + "', a name the ledger"
						+ " redacts, so it is never stored and the method could not be given it. " + REDACTION_ADVICE);
				continue;
			}
			List<String> redacted = ArgumentMembers.of(parameter.getParameterizedType())
				.keySet()
				.stream()
				.filter((name) -> redaction.redacts(name) || tool.sensitive().contains(name))
				.toList();
			if (!redacted.isEmpty()) {
				this.problems.add("Tool '" + tool.name() + "' (" + where + ") has reconcile method "
						+ tool.reconcile().getName() + " which takes '" + parameter.getName() + "', whose members "
						+ redacted + " the ledger redacts, so the method would be given " + Redaction.REDACTED
						+ " for them and could answer wrongly. " + REDACTION_ADVICE);
			}
		}
	}

	private static final String REDACTION_ADVICE = "Reconcile by another parameter or the IdempotencyKey, or"
			+ " configure what the ledger redacts (idempotency.redaction.names,"
			+ " idempotency.redaction.likely-credentials, @IdempotentTool(sensitive))";

	/**
	 * Whether a bean with tools is proxied by class with the idempotency advice; if not, the problem is
	 * noted.
	 */
	boolean proxied(String beanName, Object bean) {
		if (AopUtils.isJdkDynamicProxy(bean)) {
			this.problems.add("Bean '" + beanName + "' has idempotent tools but is proxied by interface (a JDK proxy):"
					+ " Spring AI cannot call @Tool methods through it. Proxy by class: spring.aop.proxy-target-class=true"
					+ " (Spring Boot's default), or @EnableIdempotentTools(proxyTargetClass = true)");
			return false;
		}
		if (!(bean instanceof Advised advised) || advised.indexOf(this.advisor) < 0) {
			this.problems.add("Bean '" + beanName + "' has idempotent tools but is not proxied with their advice, so its"
					+ " calls would not be deduplicated. Is the class final, or is no auto-proxy creator registered"
					+ " (@EnableIdempotentTools registers one)?");
			return false;
		}
		return true;
	}

}
