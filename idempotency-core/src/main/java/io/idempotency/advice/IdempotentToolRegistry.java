package io.idempotency.advice;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.idempotency.IdempotentTool;
import io.idempotency.ledger.CallLedger;
import io.idempotency.reconcile.ReconcileMethod;
import io.idempotency.reconcile.ReconcileMethods;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Knows every idempotent tool of the application once its singletons exist: it finds them, has each
 * checked ({@link ToolChecks}: the application does not start while a tool would misbehave at call time, and
 * the message names every offending tool), puts the advice outside Spring's retries on each tool bean
 * ({@link RetryOrdering}), and then answers the reconciler's lookups and the operators' views by tool name.
 */
public final class IdempotentToolRegistry implements ReconcileMethods, SmartInitializingSingleton, BeanFactoryAware {

	private final IdempotentToolAdvisor advisor;

	private ConfigurableListableBeanFactory beanFactory;

	/**
	 * What the lookups answer: found once at start-up, and replaced as a whole when a function is registered
	 * later.
	 */
	private record Tools(Set<String> names, Set<String> transactional, Map<String, ReconcileMethod> reconcile,
			Map<IdempotentFunction<?>, ToolDescriptor> functions, Map<String, String> declaredAt) {

		static final Tools NONE = new Tools(Set.of(), Set.of(), Map.of(), Map.of(), Map.of());

		static Tools of(Map<String, ToolDescriptor> tools, Map<String, Supplier<Object>> beans,
				Map<IdempotentFunction<?>, ToolDescriptor> functions, Map<String, String> declaredAt) {
			Map<String, ReconcileMethod> reconcile = new HashMap<>();
			tools.values()
				.stream()
				.filter((tool) -> tool.reconcile() != null && beans.containsKey(tool.name()))
				.forEach((tool) -> reconcile.put(tool.name(), new ReconcileMethod(tool.name(),
						ReconcileQuestions.method(beans.get(tool.name()), tool.reconcile()), tool.returnsNothing(),
						tool.sensitive())));
			Set<String> names = new HashSet<>(beans.keySet());
			Set<String> transactional = tools.values()
				.stream()
				.filter((tool) -> tool.transactional() && beans.containsKey(tool.name()))
				.map(ToolDescriptor::name)
				.collect(Collectors.toCollection(HashSet::new));
			functions.forEach((function, tool) -> {
				names.add(tool.name());
				if (tool.transactional()) {
					transactional.add(tool.name());
				}
				else {
					reconcile.put(tool.name(), new ReconcileMethod(tool.name(),
							ReconcileQuestions.function(function.reconcile(), tool.envelope()), tool.returnsNothing(), tool.sensitive()));
				}
			});
			return new Tools(Set.copyOf(names), Set.copyOf(transactional), Map.copyOf(reconcile), Map.copyOf(functions),
					Map.copyOf(declaredAt));
		}

		Tools with(IdempotentFunction<?> function, ToolDescriptor tool, String where,
				Map<String, ToolDescriptor> annotated, Map<String, Supplier<Object>> beans) {
			Map<IdempotentFunction<?>, ToolDescriptor> more = new HashMap<>(this.functions);
			more.put(function, tool);
			Map<String, String> declared = new HashMap<>(this.declaredAt);
			declared.put(tool.name(), where);
			return of(annotated, beans, more, declared);
		}

	}

	private volatile Tools tools = Tools.NONE;

	/** The annotated tools and their beans, found at start-up: kept to rebuild the lookups. */
	private Map<String, ToolDescriptor> annotated = Map.of();

	private Map<String, Supplier<Object>> beans = Map.of();

	/** Functions registered before the application started, checked with the rest at start-up. */
	private final Map<IdempotentFunction<?>, String> early = new LinkedHashMap<>();

	private volatile boolean started;

	private final FunctionCalls calls;

	public IdempotentToolRegistry(IdempotentToolAdvisor advisor) {
		this.advisor = advisor;
		this.calls = new FunctionCalls(this, advisor::interceptor);
	}

	/** Calls the application's idempotent functions, with the advice of its annotated tools. */
	public IdempotentCalls calls() {
		return this.calls;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
		this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		ToolChecks checks = new ToolChecks(this.advisor,
				SingletonSupplier.of(() -> this.beanFactory.getBeanProvider(CallLedger.class).getIfUnique()));
		Map<String, ToolDescriptor> described = new HashMap<>();
		// The bean each tool is called on, looked up when first needed: a lazy bean is known as a tool at
		// start-up without being created then.
		Map<String, Supplier<Object>> beans = new HashMap<>();
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
				ToolDescriptor tool = checks.tool(method, targetClass);
				described.put(tool.name(), tool);
				if (bean != null) {
					beans.put(tool.name(), () -> bean);
				}
				else if (definition.isSingleton()) {
					beans.put(tool.name(), SingletonSupplier.of(() -> this.beanFactory.getBean(beanName)));
				}
			}
			if (bean != null && checks.proxied(beanName, bean)) {
				RetryOrdering.putOutsideRetries((Advised) bean, this.advisor);
			}
		}
		Map<IdempotentFunction<?>, ToolDescriptor> functions = new HashMap<>();
		Map<String, String> declaredAt = new HashMap<>();
		// Looked up before taking this registry's lock: a bean's creation may register a function itself.
		Map<IdempotentFunction<?>, String> functionBeans = new LinkedHashMap<>();
		for (String beanName : this.beanFactory.getBeanNamesForType(IdempotentFunction.class, false, true)) {
			functionBeans.putIfAbsent(this.beanFactory.getBean(beanName, IdempotentFunction.class), "bean '" + beanName + "'");
		}
		synchronized (this) {
			functionBeans.forEach(this.early::putIfAbsent);
			this.early.forEach((function, where) -> {
				functions.put(function, checks.function(function, where));
				declaredAt.put(function.name(), where);
			});
			checks.ledger(this.beanFactory.getBeanNamesForType(CallLedger.class, true, false),
					this.beanFactory.getBeanProvider(CallLedger.class).getIfUnique() != null);
			checks.throwIfAny();
			described.forEach((name, tool) -> declaredAt.put(name, "method " + ClassUtils.getShortName(
					tool.method().getDeclaringClass()) + "." + tool.method().getName()));
			this.annotated = Map.copyOf(described);
			this.beans = Map.copyOf(beans);
			this.tools = Tools.of(this.annotated, this.beans, functions, declaredAt);
			this.started = true;
		}
	}

	/**
	 * Registers a function: before start-up, it is checked with the annotated tools; after, now.
	 * @throws IllegalStateException naming what is wrong with it
	 */
	synchronized void register(IdempotentFunction<?> function, String where) {
		if (this.tools.functions().containsKey(function) || this.early.containsKey(function)) {
			return;
		}
		if (!this.started) {
			for (IdempotentFunction<?> other : this.early.keySet()) {
				if (other.name().equals(function.name())) {
					throw new IllegalStateException("Function '" + function.name() + "' (" + where + ") has the name of"
							+ " another tool (" + this.early.get(other) + "): their calls would share keys. Give each a"
							+ " distinct name");
				}
			}
			this.early.put(function, where);
			return;
		}
		ToolChecks checks = new ToolChecks(this.advisor,
				SingletonSupplier.of(() -> this.beanFactory.getBeanProvider(CallLedger.class).getIfUnique()));
		this.tools.declaredAt().forEach(checks::taken);
		ToolDescriptor tool = checks.function(function, where);
		checks.ledger(this.beanFactory.getBeanNamesForType(CallLedger.class, true, false),
				this.beanFactory.getBeanProvider(CallLedger.class).getIfUnique() != null);
		checks.throwIfAny("The function cannot be registered");
		this.tools = this.tools.with(function, tool, where, this.annotated, this.beans);
	}

	/**
	 * The registered function's description, for its calls.
	 * @throws IllegalStateException if it is not registered, or the application has not started
	 */
	ToolDescriptor function(IdempotentFunction<?> function) {
		Tools known = this.tools;
		ToolDescriptor tool = known.functions().get(function);
		if (tool != null) {
			return tool;
		}
		String name = "Function '" + function.name() + "'";
		if (!this.started) {
			throw new IllegalStateException(name + " is called before the application has started: its calls are"
					+ " accepted once the idempotent tools have been checked at start-up");
		}
		if (known.functions().keySet().stream().anyMatch((other) -> other.name().equals(function.name()))) {
			throw new IllegalStateException(name + " is not the function registered under that name, but another"
					+ " object of the same name: build each function once (a bean, or a field) and call that one");
		}
		throw new IllegalStateException(name + " is not registered, so the reconciler would not know its calls:"
				+ " declare it as a bean, or register it with IdempotentCalls.register before its first call");
	}

	/**
	 * The names frameworks expose the idempotent tools of a bean factory under ({@code @Tool} or
	 * {@code @McpTool} name, else the method's), read from the beans' types without creating any bean: for
	 * a framework that describes tools before the application has started, such as an MCP server
	 * advertising {@code idempotentHint}.
	 */
	public static Set<String> exposedToolNames(ConfigurableListableBeanFactory beanFactory) {
		Set<String> names = new TreeSet<>();
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
		if (!mayHoldTools(beanFactory.getMergedBeanDefinition(beanName))) {
			return null;
		}
		return beanFactory.getType(beanName, false);
	}

	/** Whether a bean of this definition is one whose tools are found: an application bean, not an abstract one. */
	static boolean mayHoldTools(BeanDefinition definition) {
		return !definition.isAbstract() && definition.getRole() != BeanDefinition.ROLE_INFRASTRUCTURE;
	}

	/** The {@link IdempotentTool} methods of a class. */
	static Set<Method> toolMethods(Class<?> type) {
		return MethodIntrospector
			.selectMethods(type, (MethodIntrospector.MetadataLookup<Boolean>) (method) -> AnnotatedElementUtils
				.hasAnnotation(method, IdempotentTool.class) ? Boolean.TRUE : null)
			.keySet();
	}

	/**
	 * The names of the functions registered so far, before start-up or after: for a framework that describes
	 * tools before the application has started, as {@link #exposedToolNames} does for annotated tools.
	 */
	public synchronized Set<String> functionNames() {
		Set<String> names = new TreeSet<>();
		this.early.keySet().forEach((function) -> names.add(function.name()));
		this.tools.functions().keySet().forEach((function) -> names.add(function.name()));
		return Set.copyOf(names);
	}

	@Override
	public long maxResultBytes() {
		return this.advisor.maxResultBytes();
	}

	@Override
	public Optional<ReconcileMethod> find(String tool) {
		return Optional.ofNullable(this.tools.reconcile().get(tool));
	}

	/** The names of every tool, once the application has started. */
	public Set<String> toolNames() {
		return this.tools.names();
	}

	/**
	 * The names of this application's transactional tools: their claim commits only with their outcome, and
	 * no reconciler resolves them.
	 */
	public Set<String> transactionalToolNames() {
		return this.tools.transactional();
	}

	/**
	 * The names of this application's tools some of whose calls need a person's approval before they execute:
	 * the ledger's table must have the approval columns for them.
	 */
	public Set<String> approvalToolNames() {
		Tools known = this.tools;
		Set<String> names = new java.util.TreeSet<>();
		this.annotated.values()
			.stream()
			.filter((tool) -> tool.approval().isNeeded() && known.names().contains(tool.name()))
			.forEach((tool) -> names.add(tool.name()));
		known.functions().values().stream().filter((tool) -> tool.approval().isNeeded()).forEach((tool) -> names.add(tool.name()));
		return Set.copyOf(names);
	}

	@Override
	public Optional<ResolvableType> resultType(String tool) {
		Tools known = this.tools;
		ToolDescriptor described = this.annotated.get(tool);
		if (described == null || !known.names().contains(tool)) {
			described = known.functions().values().stream().filter((f) -> f.name().equals(tool)).findFirst().orElse(null);
		}
		return Optional.ofNullable(described).map(ToolDescriptor::dataType);
	}

	@Override
	public Set<String> reconcilableToolNames() {
		return this.tools.reconcile().keySet();
	}

}
