package io.idempotency.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.idempotency.advice.IdempotentToolAdvisor;
import io.idempotency.MissingRunPolicy;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.Redaction;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.util.unit.DataSize;

/**
 * Settings of idempotent tool calls. Every {@code idempotency.*} property is here, in small nested groups,
 * and nowhere else: Spring Boot binds them and writes the IDE's metadata from this one class, whose length is
 * that of the properties' documentation.
 */
@ConfigurationProperties("idempotency")
public class IdempotencyProperties {

	/** Whether idempotent tools are deduplicated. When off, their methods run as if not annotated. */
	private boolean enabled = true;

	/** The order of the idempotency advice among other advisors; the default runs it outside @Transactional. */
	private int advisorOrder = IdempotentToolAdvisor.DEFAULT_ORDER;

	/** What a tool called outside any run does: refuse (nothing is executed), or execute without deduplication. */
	private MissingRunPolicy missingRun = MissingRunPolicy.REFUSE;

	/**
	 * The most a tool call's arguments may take, as the JSON the ledger stores; larger ones are refused
	 * before anything is claimed or executed.
	 */
	private DataSize maxArgumentsSize = DataSize.ofBytes(IdempotencyKeys.DEFAULT_MAX_ARGUMENTS_BYTES);

	/**
	 * The most a tool's result may take, as the JSON the ledger stores; a call with a larger result executed,
	 * and is recorded as done without its result (a repeat is told so).
	 */
	private DataSize maxResultSize = DataSize.ofBytes(IdempotentToolAdvisor.DEFAULT_MAX_RESULT_BYTES);

	/**
	 * The bean name of the transaction manager that transactional tools run in; it must hold connections of the
	 * ledger's DataSource. By default, the primary (or only) one where it does, else the only one that does.
	 */
	private String transactionManager;

	/** Exception class names after which a tool's effect may have happened, added to the defaults (I/O errors, timeouts, ResourceAccessException). */
	private List<String> unknownExceptions = new ArrayList<>();

	/**
	 * Whether to turn on Reactor's automatic context propagation, so that a run bound with RunContext reaches
	 * tools run by a reactive pipeline on other threads (Spring AI's streaming).
	 */
	private boolean reactorContextPropagation = true;

	private final ToolContext toolContext = new ToolContext();

	private final Redaction redaction = new Redaction();

	private final Jdbc jdbc = new Jdbc();

	private final Reconciler reconciler = new Reconciler();

	private final ReplayCounts replayCounts = new ReplayCounts();

	private final Retention retention = new Retention();

	private final ReplayCache replayCache = new ReplayCache();

	private final OutcomeWriteBehind outcomeWriteBehind = new OutcomeWriteBehind();

	private final Heartbeat heartbeat = new Heartbeat();

	private final SpringAi springAi = new SpringAi();

	private final Http http = new Http();

	private final Mcp mcp = new Mcp();

	private final Health health = new Health();

	private final Approval approval = new Approval();

	public boolean isReactorContextPropagation() {
		return this.reactorContextPropagation;
	}

	public void setReactorContextPropagation(boolean reactorContextPropagation) {
		this.reactorContextPropagation = reactorContextPropagation;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public int getAdvisorOrder() {
		return this.advisorOrder;
	}

	public void setAdvisorOrder(int advisorOrder) {
		this.advisorOrder = advisorOrder;
	}

	public MissingRunPolicy getMissingRun() {
		return this.missingRun;
	}

	public void setMissingRun(MissingRunPolicy missingRun) {
		this.missingRun = missingRun;
	}

	public DataSize getMaxArgumentsSize() {
		return this.maxArgumentsSize;
	}

	public void setMaxArgumentsSize(DataSize maxArgumentsSize) {
		this.maxArgumentsSize = maxArgumentsSize;
	}

	/** The argument size limit in bytes, or a start that fails and says why. */
	long maxArgumentsBytes() {
		if (this.maxArgumentsSize == null || this.maxArgumentsSize.toBytes() < 1) {
			throw new IllegalStateException("idempotency.max-arguments-size must be at least 1 byte, but was "
					+ this.maxArgumentsSize);
		}
		return this.maxArgumentsSize.toBytes();
	}

	public String getTransactionManager() {
		return this.transactionManager;
	}

	public void setTransactionManager(String transactionManager) {
		this.transactionManager = transactionManager;
	}

	public DataSize getMaxResultSize() {
		return this.maxResultSize;
	}

	public void setMaxResultSize(DataSize maxResultSize) {
		this.maxResultSize = maxResultSize;
	}

	/** The result size limit in bytes, or a start that fails and says why. */
	long maxResultBytes() {
		if (this.maxResultSize == null || this.maxResultSize.toBytes() < 1) {
			throw new IllegalStateException("idempotency.max-result-size must be at least 1 byte, but was "
					+ this.maxResultSize);
		}
		return this.maxResultSize.toBytes();
	}

	public List<String> getUnknownExceptions() {
		return this.unknownExceptions;
	}

	public void setUnknownExceptions(List<String> unknownExceptions) {
		this.unknownExceptions = unknownExceptions;
	}

	public ToolContext getToolContext() {
		return this.toolContext;
	}

	public Redaction getRedaction() {
		return this.redaction;
	}

	public Jdbc getJdbc() {
		return this.jdbc;
	}

	public Reconciler getReconciler() {
		return this.reconciler;
	}

	public ReplayCounts getReplayCounts() {
		return this.replayCounts;
	}

	public Mcp getMcp() {
		return this.mcp;
	}

	public SpringAi getSpringAi() {
		return this.springAi;
	}

	public Heartbeat getHeartbeat() {
		return this.heartbeat;
	}

	public ReplayCache getReplayCache() {
		return this.replayCache;
	}

	public OutcomeWriteBehind getOutcomeWriteBehind() {
		return this.outcomeWriteBehind;
	}

	public Retention getRetention() {
		return this.retention;
	}

	public Http getHttp() {
		return this.http;
	}

	public Health getHealth() {
		return this.health;
	}

	public Approval getApproval() {
		return this.approval;
	}

	/** The calls of tools that need a person's approval before their effect. */
	public static class Approval {

		/**
		 * How long a call waits for a person's approval before it expires, and its run is refused as if it had
		 * been rejected: more than zero, at most 36500d. The reconciler's pass expires them.
		 */
		private Duration expireAfter = Duration.ofHours(24);

		public Duration getExpireAfter() {
			return this.expireAfter;
		}

		public void setExpireAfter(Duration expireAfter) {
			this.expireAfter = expireAfter;
		}

	}

	/** The health indicator and the endpoint. */
	public static class Health {

		/** The window over which the replay rate is computed: more than zero, at most 36500d. */
		private Duration window = Duration.ofDays(30);

		/**
		 * With more calls than this in the window and not one replay, health warns that deduplication may not be
		 * working (it stays UP).
		 */
		private long minimumCalls = 1000;

		/**
		 * How long the health indicator, and the gauge of the calls waiting for a human, reuse their last counts of
		 * the ledger (zero: read at each probe, once at a time); whether the ledger can be reached is checked at
		 * every probe.
		 */
		private Duration cacheFor = Duration.ofMinutes(1);

		/**
		 * How long a reading of the ledger by health, the endpoint or the gauge may take, and a probe wait for one:
		 * a whole number of seconds from 1s to 60s. A probe whose reading does not answer within it (a table locked
		 * by a migration) answers from the last reading, marked stale.
		 */
		private Duration timeout = Duration.ofSeconds(2);

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public Duration getWindow() {
			return this.window;
		}

		public void setWindow(Duration window) {
			this.window = window;
		}

		public long getMinimumCalls() {
			return this.minimumCalls;
		}

		public void setMinimumCalls(long minimumCalls) {
			this.minimumCalls = minimumCalls;
		}

		public Duration getCacheFor() {
			return this.cacheFor;
		}

		public void setCacheFor(Duration cacheFor) {
			this.cacheFor = cacheFor;
		}

	}

	/** Outgoing HTTP requests. */
	public static class Http {

		/** Whether requests sent with RestClient or RestTemplate from inside an idempotent tool carry its key as an Idempotency-Key header. */
		private boolean propagateKey = true;

		/**
		 * The header of an incoming HTTP request whose value is the run of the agent calls it makes, so that a
		 * client's retry of the same request is the same run; empty to ignore incoming headers.
		 */
		private String runHeader = "Idempotency-Key";

		public String getRunHeader() {
			return this.runHeader;
		}

		public void setRunHeader(String runHeader) {
			this.runHeader = runHeader;
		}

		public boolean isPropagateKey() {
			return this.propagateKey;
		}

		public void setPropagateKey(boolean propagateKey) {
			this.propagateKey = propagateKey;
		}

	}

	/** Where a framework tool context (Spring AI's ToolContext) holds the run. */
	public static class ToolContext {

		/** The key of the run id in the tool context. */
		private String runIdKey = "runId";

		/** The key of the user id in the tool context. */
		private String userIdKey = "userId";

		public String getRunIdKey() {
			return this.runIdKey;
		}

		public void setRunIdKey(String runIdKey) {
			this.runIdKey = runIdKey;
		}

		public String getUserIdKey() {
			return this.userIdKey;
		}

		public void setUserIdKey(String userIdKey) {
			this.userIdKey = userIdKey;
		}

	}

	/** What is kept out of the ledger. */
	public static class Redaction {

		/**
		 * Argument names whose values are never stored, at any depth; a name matches when it is one of these as
		 * a whole, ignoring case, '_' and '-' ({@code access_token} matches {@code accessToken}). Setting it
		 * replaces these defaults, not the likely-credentials rule.
		 */
		private Set<String> names = new LinkedHashSet<>(io.idempotency.ledger.Redaction.DEFAULT_NAMES);

		/**
		 * Whether names that are likely credentials are never stored either, by Spring Boot's rule for
		 * sensitive keys: names that end with password, secret, key or token, or contain credentials, ignoring
		 * case, '_' and '-' ({@code githubToken}, {@code stripeApiKey}, {@code db_password}).
		 */
		private boolean likelyCredentials = true;

		public boolean isLikelyCredentials() {
			return this.likelyCredentials;
		}

		public void setLikelyCredentials(boolean likelyCredentials) {
			this.likelyCredentials = likelyCredentials;
		}

		public Set<String> getNames() {
			return this.names;
		}

		public void setNames(Set<String> names) {
			this.names = names;
		}

	}

	/** The ledger table. */
	public static class Jdbc {

		/** The ledger table's name, optionally schema-qualified. */
		private String tableName = "tool_audit";

		/** When to create the ledger table at start-up (only if it does not exist): embedded databases only, always, or never. */
		private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

		/** A schema script to run instead of the shipped one; @@platform@@ is replaced by the database platform. */
		private String schema;

		/** The platform of the schema script (postgresql, mysql, h2); detected from the database by default. */
		private String platform;

		/**
		 * Whether the ledger's Flyway migrations make and upgrade the table, run by a Flyway of the library's own
		 * with a history table of its own, after the application's Flyway or Liquibase; initialize-schema is then
		 * not used. Needs Flyway on the class path and the table name tool_audit.
		 */
		private boolean flyway;

		/** The history table of the ledger's own Flyway migrations (idempotency.jdbc.flyway). */
		private String flywayTable = "idempotency_schema_history";

		public String getTableName() {
			return this.tableName;
		}

		public void setTableName(String tableName) {
			this.tableName = tableName;
		}

		public DatabaseInitializationMode getInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

		public String getSchema() {
			return this.schema;
		}

		public void setSchema(String schema) {
			this.schema = schema;
		}

		public String getPlatform() {
			return this.platform;
		}

		public void setPlatform(String platform) {
			this.platform = platform;
		}

		public boolean isFlyway() {
			return this.flyway;
		}

		public void setFlyway(boolean flyway) {
			this.flyway = flyway;
		}

		public String getFlywayTable() {
			return this.flywayTable;
		}

		public void setFlywayTable(String flywayTable) {
			this.flywayTable = flywayTable;
		}

	}

	/** The job that resolves calls whose outcome is open. */
	public static class Reconciler {

		// Written out, so that the IDE metadata shows them; ReconcilerDefaultsTest pins them to the core's.

		/** Whether this instance runs the reconciler. Several instances may: each row goes to one at a time. */
		private boolean enabled = true;

		/** How often the reconciler looks for stale calls. */
		private Duration interval = Duration.ofSeconds(30);

		/** How long a call must have been attempting or unknown before it is reconciled. */
		private Duration staleAfter = Duration.ofMinutes(2);

		/** The same, per tool name, for tools that legitimately run longer. */
		private Map<String, Duration> staleAfterByTool = new LinkedHashMap<>();

		/** The most rows one pass takes. */
		private int batchSize = 100;

		/** How long a pass holds its rows. */
		private Duration lease = Duration.ofMinutes(5);

		/** The pause after a reconcile method fails; doubled after each further failure. */
		private Duration initialBackoff = Duration.ofMinutes(1);

		/** The longest pause between attempts. */
		private Duration maxBackoff = Duration.ofHours(1);

		/** After this many failed attempts a row waits for a human. */
		private int maxAttempts = 10;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

		public Duration getStaleAfter() {
			return this.staleAfter;
		}

		public void setStaleAfter(Duration staleAfter) {
			this.staleAfter = staleAfter;
		}

		public Map<String, Duration> getStaleAfterByTool() {
			return this.staleAfterByTool;
		}

		public void setStaleAfterByTool(Map<String, Duration> staleAfterByTool) {
			this.staleAfterByTool = staleAfterByTool;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public Duration getLease() {
			return this.lease;
		}

		public void setLease(Duration lease) {
			this.lease = lease;
		}

		public Duration getInitialBackoff() {
			return this.initialBackoff;
		}

		public void setInitialBackoff(Duration initialBackoff) {
			this.initialBackoff = initialBackoff;
		}

		public Duration getMaxBackoff() {
			return this.maxBackoff;
		}

		public void setMaxBackoff(Duration maxBackoff) {
			this.maxBackoff = maxBackoff;
		}

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

	}

	/** Replay counting. */
	public static class ReplayCounts {

		/** How often replay counts kept in memory are written to the ledger. */
		private Duration flushInterval = Duration.ofSeconds(10);

		public Duration getFlushInterval() {
			return this.flushInterval;
		}

		public void setFlushInterval(Duration flushInterval) {
			this.flushInterval = flushInterval;
		}

	}

	/** Spring AI. */
	public static class SpringAi {

		/**
		 * Whether every ChatClient made from the auto-configured builder gives each call its own run, unless the
		 * application supplies one.
		 */
		private boolean runPerPrompt = true;

		public boolean isRunPerPrompt() {
			return this.runPerPrompt;
		}

		public void setRunPerPrompt(boolean runPerPrompt) {
			this.runPerPrompt = runPerPrompt;
		}

	}

	/** MCP servers built by Spring AI. */
	public static class Mcp {

		/** The _meta entry of a tools/call request that names the call's run: read by this application's MCP servers, sent by its MCP clients. */
		private String runIdMetaKey = "io.idempotency/runId";

		public String getRunIdMetaKey() {
			return this.runIdMetaKey;
		}

		public void setRunIdMetaKey(String runIdMetaKey) {
			this.runIdMetaKey = runIdMetaKey;
		}

	}

	/** How an instance tells every reconciler that the calls it is executing are still running. */
	public static class Heartbeat {

		/**
		 * How often the calls this instance is executing are marked as still running, so that the reconciler
		 * leaves a long call alone while its instance lives. At most half of the shortest stale-after. When not
		 * set, a third of the shortest stale-after, between 100ms and 20s.
		 */
		private Duration interval;

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

	}

	public static class Retention {

		/** Calls settled (succeeded or failed) longer ago than this are deleted; empty keeps them forever. */
		private Duration period = Duration.ofDays(90);

		/** How often old settled calls are deleted. */
		private Duration interval = Duration.ofHours(1);

		/** The most rows one delete statement removes. */
		private int batchSize = 1000;

		public Duration getPeriod() {
			return this.period;
		}

		public void setPeriod(Duration period) {
			this.period = period;
		}

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

	}

	/**
	 * Succeeded outcomes kept in memory to answer repeats on this instance without the database. A failure is
	 * not kept (a late success may overturn a reconciler's): a repeat of a failed call reads the table.
	 */
	public static class ReplayCache {

		/** Whether repeats of succeeded calls this instance has read are answered from memory. */
		private boolean enabled = true;

		/** How many succeeded outcomes are kept at most; the oldest kept goes first. */
		private int maximumEntries = 10_000;

		/** How long an outcome is answered from memory after it was read; keep it well below the retention period. */
		private Duration timeToLive = Duration.ofMinutes(10);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getMaximumEntries() {
			return this.maximumEntries;
		}

		public void setMaximumEntries(int maximumEntries) {
			this.maximumEntries = maximumEntries;
		}

		public Duration getTimeToLive() {
			return this.timeToLive;
		}

		public void setTimeToLive(Duration timeToLive) {
			this.timeToLive = timeToLive;
		}

	}

	/**
	 * Outcomes written after their callers are answered, in batches: the outcome's commit leaves the caller's
	 * path, and until it is written another instance sees the call in progress. Off unless enabled.
	 */
	public static class OutcomeWriteBehind {

		/** Whether a call's caller is answered before its outcome is written (never for transactional tools). */
		private boolean enabled;

		/** How many outcomes may wait at most; when full, the next is written by its caller. */
		private int capacity = 1000;

		/** How many outcomes one batch writes at most. */
		private int batchSize = 100;

		/** How long the oldest outcome of a batch waits for others to be written with it. */
		private Duration delay = Duration.ofMillis(5);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getCapacity() {
			return this.capacity;
		}

		public void setCapacity(int capacity) {
			this.capacity = capacity;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public Duration getDelay() {
			return this.delay;
		}

		public void setDelay(Duration delay) {
			this.delay = delay;
		}

	}

	/**
	 * The settings as bound from the environment now: for the beans made before configuration properties
	 * beans are (advisors and decorators that post-processors need early).
	 */
	public static IdempotencyProperties bind(org.springframework.core.env.Environment environment) {
		return org.springframework.boot.context.properties.bind.Binder.get(environment)
			.bindOrCreate("idempotency", IdempotencyProperties.class);
	}

	List<String> unknownExceptionsOrEmpty() {
		return (this.unknownExceptions != null) ? this.unknownExceptions : List.of();
	}

	Set<String> redactionNames() {
		return (this.redaction.names != null) ? this.redaction.names : Set.of();
	}

	static io.idempotency.ledger.ReplayCache replayCacheOf(IdempotencyProperties properties) {
		ReplayCache cache = properties.getReplayCache();
		if (!cache.isEnabled()) {
			return io.idempotency.ledger.ReplayCache.off();
		}
		atLeast("idempotency.replay-cache.maximum-entries", cache.getMaximumEntries(), 0,
				" (enabled=false turns the cache off)");
		return new io.idempotency.ledger.ReplayCache(cache.getMaximumEntries(),
				positive("idempotency.replay-cache.time-to-live", cache.getTimeToLive()));
	}

	static io.idempotency.ledger.OutcomeWriteBehind outcomeWriteBehindOf(IdempotencyProperties properties) {
		OutcomeWriteBehind writeBehind = properties.getOutcomeWriteBehind();
		if (!writeBehind.isEnabled()) {
			return io.idempotency.ledger.OutcomeWriteBehind.off();
		}
		atLeast("idempotency.outcome-write-behind.capacity", writeBehind.getCapacity(), 1,
				" (enabled=false turns write-behind off)");
		atLeast("idempotency.outcome-write-behind.batch-size", writeBehind.getBatchSize(), 1, "");
		return new io.idempotency.ledger.OutcomeWriteBehind(writeBehind.getCapacity(), writeBehind.getBatchSize(),
				notNegative("idempotency.outcome-write-behind.delay", writeBehind.getDelay()));
	}

	/** The longest duration a property may hold: a hundred years, which every supported database counts back. */
	static final Duration LONGEST = Duration.ofDays(36_500);

	/** The duration, or a start that fails naming the property: more than zero, at most {@link #LONGEST}. */
	static Duration positive(String property, Duration value) {
		if (value == null || value.isZero() || value.isNegative()) {
			throw new IllegalStateException(property + " must be more than zero, but was " + value);
		}
		return atMostLongest(property, value);
	}

	/** The duration, or a start that fails naming the property: zero or more, at most {@link #LONGEST}. */
	static Duration notNegative(String property, Duration value) {
		if (value == null || value.isNegative()) {
			throw new IllegalStateException(property + " must be zero or more, but was " + value);
		}
		return atMostLongest(property, value);
	}

	private static Duration atMostLongest(String property, Duration value) {
		if (value.compareTo(LONGEST) > 0) {
			throw new IllegalStateException(property + " must be at most " + LONGEST.toDays() + "d, but was " + value);
		}
		return value;
	}

	/** A start that fails naming the property, unless the count is at least the least. */
	static void atLeast(String property, long count, long least, String hint) {
		if (count < least) {
			throw new IllegalStateException(property + " must be at least " + least + ", but was " + count + hint);
		}
	}

	static io.idempotency.ledger.Redaction redactionOf(IdempotencyProperties properties) {
		return properties.getRedaction().isLikelyCredentials()
				? io.idempotency.ledger.Redaction.likelyCredentialsAnd(properties.redactionNames())
				: io.idempotency.ledger.Redaction.of(properties.redactionNames());
	}

}
