package io.idempotency.key;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of deriving one key for a call with ten arguments, from JSON text (as a model sends it) and
 * from a Java record (as a tool method receives it). The floor, measured in the same run, is the SHA-256
 * of the canonical text alone: the part of the work no implementation of the specification can skip.
 * Read the results (medians, p0.50) as ratios to the floor.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
@Threads(1)
@State(Scope.Benchmark)
public class KeyDerivationBenchmark {

	public record QuoteRequest(String accountName, String accountId, String sku, int quantity, double unitPrice,
			String currency, LocalDate deliverBy, boolean expedite, String note, String contactEmail) {
	}

	private static final String TOOL = "draft_quote";

	private static final String RUN = "run-7f3a2c";

	private String argumentsJson;

	private Map<String, Object> arguments;

	private Map<String, Object> plainArguments;

	private byte[] canonical;

	private MessageDigest prototype;

	@Setup
	public void setUp() throws NoSuchAlgorithmException {
		this.argumentsJson = """
				{"sku": " SKU-4411", "quantity": 200, "accountName": "Henderson Industrial", "accountId": "4471",
				 "unitPrice": 19.99, "currency": "EUR", "deliverBy": "2026-12-18", "expedite": false,
				 "note": "Customer asked for the usual pallet packing", "contactEmail": "buyer@henderson.example"}
				""";
		this.arguments = Map.of("request", new QuoteRequest("Henderson Industrial", "4471", " SKU-4411", 200, 19.99,
				"EUR", LocalDate.of(2026, 12, 18), false, "Customer asked for the usual pallet packing",
				"buyer@henderson.example"));
		this.plainArguments = new LinkedHashMap<>();
		this.plainArguments.put("accountName", "Henderson Industrial");
		this.plainArguments.put("accountId", "4471");
		this.plainArguments.put("sku", " SKU-4411");
		this.plainArguments.put("quantity", 200);
		this.plainArguments.put("unitPrice", 19.99);
		this.plainArguments.put("currency", "EUR");
		this.plainArguments.put("deliverBy", "2026-12-18");
		this.plainArguments.put("expedite", false);
		this.plainArguments.put("note", "Customer asked for the usual pallet packing");
		this.plainArguments.put("contactEmail", "buyer@henderson.example");
		this.prototype = MessageDigest.getInstance("SHA-256");
		this.canonical = IdempotencyKeys.canonicalJson(TOOL, this.argumentsJson, RUN).getBytes(StandardCharsets.UTF_8);
	}

	@Benchmark
	public IdempotencyKey fromJsonText() {
		return IdempotencyKeys.derive(TOOL, this.argumentsJson, RUN);
	}

	@Benchmark
	public IdempotencyKey fromJavaRecord() {
		return IdempotencyKeys.derive(TOOL, this.arguments, RUN);
	}

	/**
	 * A call as the advice prepares it, its arguments plain values (strings, numbers, booleans), as most tool
	 * methods take them: the key and the arguments' JSON to store.
	 */
	@Benchmark
	public CanonicalCall preparedFromPlainValues() {
		return IdempotencyKeys.canonicalise(TOOL, this.plainArguments, RUN, IdempotencyKeys.DEFAULT_MAX_ARGUMENTS_BYTES);
	}

	@Benchmark
	public byte[] floorSha256OfCanonicalText() throws NoSuchAlgorithmException {
		return MessageDigest.getInstance("SHA-256").digest(this.canonical);
	}

	/** The same digest from a copy of a prototype, as keys are made, instead of a lookup among the providers. */
	@Benchmark
	public byte[] sha256FromACopy() throws CloneNotSupportedException {
		return ((MessageDigest) this.prototype.clone()).digest(this.canonical);
	}

}
