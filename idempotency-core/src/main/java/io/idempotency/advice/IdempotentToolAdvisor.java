package io.idempotency.advice;

import io.idempotency.ledger.ResultCodec;
import io.idempotency.MissingRunPolicy;
import io.idempotency.IdempotentCallListener;
import io.idempotency.IdempotentTool;
import java.util.Collection;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.run.RunResolver;
import io.idempotency.run.RunSource;
import io.idempotency.observation.DefaultIdempotentCallObservationConvention;
import io.idempotency.observation.IdempotentCallObservationConvention;
import io.idempotency.observation.IdempotentCallObservationDocumentation;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.aop.Pointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.Ordered;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;
import tools.jackson.databind.json.JsonMapper;

/**
 * Applies the idempotency advice to every {@link IdempotentTool} method of the beans it proxies. Its
 * collaborators are looked up on first use, so that declaring it does not start the database early.
 *
 * <p>Its {@linkplain #setOrder(int) order} defaults to {@link #DEFAULT_ORDER}: before
 * {@code @Transactional} at its default order, so that the claim commits before the tool's transaction
 * begins and the outcome is recorded after it ends.
 */
public final class IdempotentToolAdvisor extends AbstractPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	/**
	 * How many bytes a result may take as JSON (UTF-8) to be stored, unless configured otherwise: 1 MiB. A
	 * larger one is recorded as done without its result.
	 */
	public static final long DEFAULT_MAX_RESULT_BYTES = ResultCodec.DEFAULT_MAX_RESULT_BYTES;

	/** The default order: ahead of advisors at the lowest precedence, such as {@code @Transactional}'s. */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

	private final transient Pointcut pointcut = new AnnotationMatchingPointcut(null, IdempotentTool.class, true);

	private final transient SingletonSupplier<IdempotentToolInterceptor> interceptor;

	private final transient Advice advice;

	private MissingRunPolicy missingRunPolicy = MissingRunPolicy.REFUSE;

	private long maxArgumentsBytes = IdempotencyKeys.DEFAULT_MAX_ARGUMENTS_BYTES;

	private long maxResultBytes = DEFAULT_MAX_RESULT_BYTES;

	private String runIdKey = "runId";

	private String userIdKey = "userId";

	private final List<Class<? extends Throwable>> unknownExceptions = new ArrayList<>();

	private transient Supplier<List<IdempotentCallListener>> listeners = List::of;

	private transient Supplier<ObservationRegistry> observations = () -> ObservationRegistry.NOOP;

	private transient Supplier<IdempotentCallObservationConvention> observationConvention = () -> null;

	/**
	 * @param ledger the ledger that claims and records calls: a {@link JdbcLedger}, on whose
	 * {@code DataSource} alone transactional tools can run
	 * @param resultMapper the JSON mapper that stores results and reads them back (the application's, so
	 * that results round-trip as the application writes them)
	 * @param runSources where to look for the run after the tool's context and {@code RunContext}
	 * @param transactionManager the transaction manager of the ledger's {@code DataSource}, for transactional
	 * tools (see {@link #transactionManagerOf}); its supplier may return {@code null} where there is none. One
	 * that does not hold connections of the ledger's {@code DataSource} is not used, and an application with
	 * transactional tools then fails to start
	 */
	public IdempotentToolAdvisor(Supplier<? extends CallLedger> ledger, Supplier<JsonMapper> resultMapper,
			Supplier<List<RunSource>> runSources, Supplier<PlatformTransactionManager> transactionManager) {
		Objects.requireNonNull(ledger, "ledger");
		Objects.requireNonNull(resultMapper, "resultMapper");
		Objects.requireNonNull(runSources, "runSources");
		Objects.requireNonNull(transactionManager, "transactionManager");
		this.interceptor = SingletonSupplier.of(() -> new IdempotentToolInterceptor(new CallFlow(
				Objects.requireNonNull(ledger.get(), "No ledger for idempotent tools"),
				new ResultCodec(resultMapper.get(), this.maxResultBytes),
				new RunResolver(this.runIdKey, this.userIdKey, runSources.get()),
				new FailureClassifier(this.unknownExceptions), this.missingRunPolicy, this.maxArgumentsBytes,
				transactionManager.get(),
				this.listeners.get(), this.observations.get(), this.observationConvention.get())));
		this.advice = (MethodInterceptor) (invocation) -> this.interceptor.obtain().invoke(invocation);
		setOrder(DEFAULT_ORDER);
	}

	/**
	 * The transaction manager for transactional tools among an application's: the primary (or only) one where
	 * it {@linkplain JdbcLedger#joinsTransactionsOf joins} the ledger's {@code DataSource}, else the only one
	 * that does; {@code null} where none does, or several do and none is primary (then transactional tools stop
	 * the start, and the message says so).
	 */
	public static PlatformTransactionManager transactionManagerOf(JdbcLedger ledger,
			ObjectProvider<PlatformTransactionManager> transactionManagers) {
		PlatformTransactionManager primary = transactionManagers.getIfUnique();
		if (primary != null && ledger.joinsTransactionsOf(primary)) {
			return primary;
		}
		List<PlatformTransactionManager> joining = transactionManagers.orderedStream()
			.filter(ledger::joinsTransactionsOf)
			.toList();
		if (joining.size() == 1) {
			return joining.get(0);
		}
		// None of the ledger's DataSource: the primary one, which the start-up check then names.
		return joining.isEmpty() ? primary : null;
	}

	/** What a tool called outside any run does. Default {@link MissingRunPolicy#REFUSE}. */
	public void setMissingRunPolicy(MissingRunPolicy missingRunPolicy) {
		this.missingRunPolicy = Objects.requireNonNull(missingRunPolicy, "missingRunPolicy");
	}

	/**
	 * How many bytes a call's arguments may take, as the JSON the ledger stores (UTF-8); a call with larger
	 * arguments is refused with an {@code InvalidArgumentsException} before anything is claimed or executed.
	 * Default {@link IdempotencyKeys#DEFAULT_MAX_ARGUMENTS_BYTES} (1 MiB).
	 */
	public void setMaxArgumentsBytes(long maxArgumentsBytes) {
		if (maxArgumentsBytes < 1) {
			throw new IllegalArgumentException("maxArgumentsBytes must be at least 1, but was " + maxArgumentsBytes);
		}
		this.maxArgumentsBytes = maxArgumentsBytes;
	}

	/**
	 * How many bytes a result may take, as the JSON the ledger stores (UTF-8); a call whose result is larger
	 * executed and is recorded as done without its result, so that a repeat is told so rather than handed a
	 * result the database might refuse. Default {@link #DEFAULT_MAX_RESULT_BYTES} (1 MiB); the reconciler
	 * applies the same limit.
	 */
	public void setMaxResultBytes(long maxResultBytes) {
		if (maxResultBytes < 1) {
			throw new IllegalArgumentException("maxResultBytes must be at least 1, but was " + maxResultBytes);
		}
		this.maxResultBytes = maxResultBytes;
	}

	long maxResultBytes() {
		return this.maxResultBytes;
	}

	/**
	 * The keys of the run id and the user id in a framework tool context (Spring AI's {@code ToolContext}).
	 * Default {@code runId} and {@code userId}.
	 */
	public void setToolContextKeys(String runIdKey, String userIdKey) {
		this.runIdKey = requireText(runIdKey, "runIdKey");
		this.userIdKey = requireText(userIdKey, "userIdKey");
	}

	/**
	 * More exception types, by class name, after which a tool's effect may have happened (recorded
	 * {@code unknown}, for the reconciler), in addition to I/O errors, timeouts, lost connections and HTTP
	 * 502, 503 and 504 answers. Each name is resolved now, a nested class written either way
	 * ({@code Outer.Inner} or {@code Outer$Inner}), and matched on the exception and its causes.
	 * @throws IllegalArgumentException naming each name that is not a {@code Throwable} on the class path
	 */
	public void addUnknownExceptions(Collection<String> classNames) {
		this.unknownExceptions.addAll(FailureClassifier.resolve(classNames, ClassUtils.getDefaultClassLoader()));
	}

	/** Where to find the listeners told of every call; looked up on first use. */
	public void setListeners(Supplier<List<IdempotentCallListener>> listeners) {
		this.listeners = Objects.requireNonNull(listeners, "listeners");
	}

	/**
	 * Where to find the registry of the observation made around each call (by default
	 * {@code idempotency.tool.call}, with the key values of {@link IdempotentCallObservationDocumentation}); looked
	 * up on first use, and none where it returns {@code null}.
	 */
	public void setObservationRegistry(Supplier<ObservationRegistry> observations) {
		this.observations = Objects.requireNonNull(observations, "observations");
	}

	/**
	 * Where to find the convention that names and tags the observation around each call, in place of
	 * {@link DefaultIdempotentCallObservationConvention}; looked up on first use, and the default (or a
	 * {@code GlobalObservationConvention} of the registry) where it returns {@code null}.
	 */
	public void setObservationConvention(Supplier<IdempotentCallObservationConvention> observationConvention) {
		this.observationConvention = Objects.requireNonNull(observationConvention, "observationConvention");
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.advice;
	}

	IdempotentToolInterceptor interceptor() {
		return this.interceptor.obtain();
	}

	private static String requireText(String value, String name) {
		if (value == null || value.isBlank()) {
			throw new IllegalArgumentException(name + " must not be blank");
		}
		return value;
	}

}
