package io.idempotency;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.Redaction;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Knows every idempotent tool of the application, for the reconciler, and checks each once the
 * application's singletons exist. It refuses to let the application start when a tool would misbehave at
 * call time: no reconcile method, a reconcile method that does not fit,
 * no parameter names, an asynchronous result, a method a proxy cannot intercept, a bean that is not
 * proxied by class, two tools of one name. The message names every offending tool.
 *
 * <p>It also puts the idempotency advice outside Spring's {@code @Retryable}, whose post-processor places
 * its own advice first, so that a tool's retries happen within one claim.
 */
public final class IdempotentToolRegistry implements SmartInitializingSingleton, BeanFactoryAware {

	private static final Set<String> RETRY_ADVICE_PACKAGES = Set.of("org.springframework.resilience.",
			"org.springframework.retry.");

	private final IdempotentToolAdvisor advisor;

	private ConfigurableListableBeanFactory beanFactory;

	/**
	 * A tool and the bean it is called on. The bean is looked up when first needed, so that a lazy bean is
	 * known as a tool at start-up without being created then.
	 */
	static final class RegisteredTool {

		private final Supplier<Object> bean;

		private final ToolDescriptor descriptor;

		RegisteredTool(Supplier<Object> bean, ToolDescriptor descriptor) {
			this.bean = SingletonSupplier.of(bean);
			this.descriptor = descriptor;
		}

		Object bean() {
			return this.bean.get();
		}

		ToolDescriptor descriptor() {
			return this.descriptor;
		}

	}

	private volatile Map<String, RegisteredTool> tools = Map.of();

	public IdempotentToolRegistry(IdempotentToolAdvisor advisor) {
		this.advisor = advisor;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
		this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		List<String> problems = new ArrayList<>();
		Map<String, String> toolNames = new HashMap<>();
		Map<String, RegisteredTool> registered = new HashMap<>();
		for (String beanName : this.beanFactory.getBeanDefinitionNames()) {
			BeanDefinition definition = this.beanFactory.getMergedBeanDefinition(beanName);
			Class<?> type = applicationBeanType(this.beanFactory, beanName);
			if (type == null) {
				continue;
			}
			// Lazy beans are known by their type and created only when a call or the reconciler needs them.
			boolean created = definition.isSingleton() && !definition.isLazyInit();
			Object bean = created ? this.beanFactory.getBean(beanName) : null;
			Class<?> targetClass = (bean != null) ? AopUtils.getTargetClass(bean) : ClassUtils.getUserClass(type);
			Set<Method> methods = toolMethods(targetClass);
			if (methods.isEmpty()) {
				continue;
			}
			for (Method method : methods) {
				ToolDescriptor tool = ToolDescriptor.describe(method, targetClass, problems);
				String where = ClassUtils.getShortName(targetClass) + "." + method.getName();
				String other = toolNames.putIfAbsent(tool.name(), where);
				if (other != null && !other.equals(where)) {
					problems.add("Tools " + other + " and " + where + " are both named '" + tool.name()
							+ "': their calls would share keys. Give each a distinct name");
				}
				if (bean != null) {
					registered.put(tool.name(), new RegisteredTool(() -> bean, tool));
				}
				else if (definition.isSingleton()) {
					registered.put(tool.name(), new RegisteredTool(() -> this.beanFactory.getBean(beanName), tool));
				}
				checkRedaction(tool, where, problems);
				if (tool.transactional() && !this.advisor.interceptor().supportsTransactionalTools()) {
					problems.add("Tool '" + tool.name() + "' (" + where + ") is transactional, but "
							+ this.advisor.interceptor().transactionalToolsProblem() + ". Declare a transaction manager"
							+ " of the ledger's DataSource (new JdbcTransactionManager(dataSource)); with the Spring Boot"
							+ " starter, where there are several, name it with idempotency.transaction-manager");
				}
			}
			if (bean != null) {
				checkProxy(beanName, bean, problems);
			}
		}
		if (!toolNames.isEmpty() && this.beanFactory.getBeanNamesForType(CallLedger.class, true, false).length == 0) {
			problems.add("Tools " + toolNames.keySet().stream().sorted().toList() + " are idempotent, but there is no"
					+ " JdbcLedger to claim their calls in, so they would run without deduplication. Declare one; with"
					+ " the Spring Boot starter, the ledger is made on the application's DataSource: where there are"
					+ " several, mark the ledger's with @IdempotencyDataSource or one with @Primary");
		}
		if (!problems.isEmpty()) {
			throw new IllegalStateException(
					"Idempotent tools are misconfigured, so the application does not start:\n - " + String.join("\n - ", problems));
		}
		this.tools = Map.copyOf(registered);
	}

	/**
	 * The names frameworks expose the idempotent tools of a bean factory under ({@code @Tool} or
	 * {@code @McpTool} name, else the method's), read from the beans' types without creating any bean: for
	 * a framework that describes tools before the application has started, such as an MCP server
	 * advertising {@code idempotentHint}.
	 */
	public static Set<String> exposedToolNames(ConfigurableListableBeanFactory beanFactory) {
		Set<String> names = new java.util.TreeSet<>();
		for (String beanName : beanFactory.getBeanDefinitionNames()) {
			Class<?> type = applicationBeanType(beanFactory, beanName);
			if (type != null) {
				toolMethods(ClassUtils.getUserClass(type)).forEach((method) -> names.add(ToolDescriptor.toolCallName(method)));
			}
		}
		return Set.copyOf(names);
	}

	/** The type of an application bean that may hold tools, without creating it; {@code null} for any other. */
	private static Class<?> applicationBeanType(ConfigurableListableBeanFactory beanFactory, String beanName) {
		BeanDefinition definition = beanFactory.getMergedBeanDefinition(beanName);
		if (definition.isAbstract() || definition.getRole() == BeanDefinition.ROLE_INFRASTRUCTURE) {
			return null;
		}
		return beanFactory.getType(beanName, false);
	}

	/** The {@link IdempotentTool} methods of a class. */
	private static Set<Method> toolMethods(Class<?> type) {
		return MethodIntrospector
			.selectMethods(type, (MethodIntrospector.MetadataLookup<Boolean>) (method) -> AnnotatedElementUtils
				.hasAnnotation(method, IdempotentTool.class) ? Boolean.TRUE : null)
			.keySet();
	}

	/** The most bytes a stored result may take, as the advice stores them. */
	long maxResultBytes() {
		return this.advisor.maxResultBytes();
	}

	/** The tool of this name, on its bean, once the application has started. */
	Optional<RegisteredTool> find(String name) {
		return Optional.ofNullable(this.tools.get(name));
	}

	/** The names of every tool, once the application has started. */
	public Set<String> toolNames() {
		return this.tools.keySet();
	}

	/**
	 * The names of this application's transactional tools: their claim commits only with their outcome, and
	 * no reconciler resolves them.
	 */
	public Set<String> transactionalToolNames() {
		return this.tools.values()
			.stream()
			.filter((tool) -> tool.descriptor().transactional())
			.map((tool) -> tool.descriptor().name())
			.collect(Collectors.toUnmodifiableSet());
	}

	/** The names of the tools this application can reconcile: those with a reconcile method. */
	public Set<String> reconcilableToolNames() {
		return this.tools.values()
			.stream()
			.filter((tool) -> tool.descriptor().reconcile() != null)
			.map((tool) -> tool.descriptor().name())
			.collect(Collectors.toUnmodifiableSet());
	}

	/**
	 * A reconcile method receives stored arguments; one whose parameter the ledger's redaction removes
	 * would receive {@value Redaction#REDACTED} instead of the value.
	 */
	private void checkRedaction(ToolDescriptor tool, String where, List<String> problems) {
		if (tool.reconcile() == null) {
			return;
		}
		CallLedger ledger = this.beanFactory.getBeanProvider(CallLedger.class).getIfUnique();
		Redaction redaction = (ledger != null) ? ledger.redaction() : null;
		for (Parameter parameter : tool.reconcile().getParameters()) {
			boolean stored = !io.idempotency.key.IdempotencyKey.class.equals(parameter.getType())
					&& !io.idempotency.key.IdempotencyKeys.isContextParameter(parameter);
			if (!stored || redaction == null || !parameter.isNamePresent()) {
				continue;
			}
			if (redaction.redacts(parameter.getName())) {
				problems.add("Tool '" + tool.name() + "' (" + where + ") has reconcile method "
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
				problems.add("Tool '" + tool.name() + "' (" + where + ") has reconcile method "
						+ tool.reconcile().getName() + " which takes '" + parameter.getName() + "', whose members "
						+ redacted + " the ledger redacts, so the method would be given " + Redaction.REDACTED
						+ " for them and could answer wrongly. " + REDACTION_ADVICE);
			}
		}
	}

	private static final String REDACTION_ADVICE = "Reconcile by another parameter or the IdempotencyKey, or"
			+ " configure what the ledger redacts (idempotency.redaction.names,"
			+ " idempotency.redaction.likely-credentials, @IdempotentTool(sensitive))";

	private void checkProxy(String beanName, Object bean, List<String> problems) {
		if (AopUtils.isJdkDynamicProxy(bean)) {
			problems.add("Bean '" + beanName + "' has idempotent tools but is proxied by interface (a JDK proxy):"
					+ " Spring AI cannot call @Tool methods through it. Proxy by class: spring.aop.proxy-target-class=true"
					+ " (Spring Boot's default), or @EnableIdempotentTools(proxyTargetClass = true)");
			return;
		}
		if (!(bean instanceof Advised advised) || advised.indexOf(this.advisor) < 0) {
			problems.add("Bean '" + beanName + "' has idempotent tools but is not proxied with their advice, so its"
					+ " calls would not be deduplicated. Is the class final, or is no auto-proxy creator registered"
					+ " (@EnableIdempotentTools registers one)?");
			return;
		}
		putOutsideRetries(advised);
	}

	private void putOutsideRetries(Advised advised) {
		Advisor[] advisors = advised.getAdvisors();
		int ours = advised.indexOf(this.advisor);
		for (int i = 0; i < ours; i++) {
			String advice = advisors[i].getAdvice().getClass().getName();
			if (RETRY_ADVICE_PACKAGES.stream().anyMatch(advice::startsWith) && !advised.isFrozen()) {
				advised.removeAdvisor(ours);
				advised.addAdvisor(i, this.advisor);
				return;
			}
		}
	}

}
