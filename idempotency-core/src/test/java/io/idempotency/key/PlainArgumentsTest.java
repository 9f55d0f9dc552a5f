package io.idempotency.key;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Plain arguments (strings, {@code int}, {@code long} and {@code double} numbers, booleans, {@code null}) are
 * written without a JSON tree: they must give exactly the key, the stored text and the refusals their tree
 * gives, for any value.
 */
class PlainArgumentsTest {

	private static final String TOOL = "draft_quote";

	private static final String RUN = "run-7f3a2c";

	/** Characters that each take another branch of trimming, normalising, escaping or refusing. */
	private static final String[] PIECES = { "a", "Z", "0", " ", "\t", "\n", "\r", "\b", "\f", "\u000B", "\u0001",
			"\u001F", "\"", "\\", "/", "\u00A0", "\u2007", "\u2028", "\u3000", "\uFEFF", "é", "e\u0301", "\u0301",
			"\u212B", "\uD83D\uDE00", "\uD83D", "\uDE00", "\u0000", "_", "-", "password", "ß", "\u00FF", "\u0080",
			"\u07FF", "\u0800", "\uFFFF", "SKU-4411" };

	@Test
	void randomPlainArgumentsGiveTheKeyTextAndRefusalsOfTheirTree() {
		long seed = new Random().nextLong();
		Random random = new Random(seed);
		for (int i = 0; i < 5_000; i++) {
			Map<String, Object> arguments = new LinkedHashMap<>();
			int members = random.nextInt(7);
			for (int m = 0; m < members; m++) {
				arguments.put(text(random, 6), value(random));
			}
			assertThat(PlainArguments.of(arguments)).isNotNull();
			assertSameAsTheTree(arguments, "seed " + seed + ", arguments " + arguments);
		}
	}

	@Test
	void numbersAtTheirEdgesAreWrittenAsTheirTreeWritesThem() {
		List<Object> numbers = List.of(0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE,
				9007199254740993L, 0.0d, -0.0d, 0.1d, 200.0d, 1e21d, 1e-7d, Double.MIN_VALUE, Double.MAX_VALUE,
				2.0E-3d, 123456789.123d, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY);
		for (Object number : numbers) {
			Map<String, Object> arguments = new LinkedHashMap<>();
			arguments.put("quantity", number);
			arguments.put("sku", " SKU-4411");
			assertSameAsTheTree(arguments, "number " + number);
		}
	}

	@Test
	void argumentsOfOtherTypesAreNotPlain() {
		assertThat(PlainArguments.of(Map.of("quantity", 200.0f))).isNull();
		assertThat(PlainArguments.of(Map.of("quantity", (short) 2))).isNull();
		assertThat(PlainArguments.of(Map.of("quantity", new BigDecimal("2.50")))).isNull();
		assertThat(PlainArguments.of(Map.of("tags", List.of("a")))).isNull();
		assertThat(PlainArguments.of(Map.of("address", Map.of("city", "Lyon")))).isNull();
		assertThat(PlainArguments.of(Map.of(1, "one"))).isNull();
		assertThat(PlainArguments.of(Map.of("sku", "SKU-4411", "quantity", 200, "expedite", true))).isNotNull();
		assertThat(PlainArguments.of(Map.of("sku", "SKU-4411"))).isNotNull();
		assertThat(PlainArguments.of(Map.of())).isNotNull();
		assertThat(PlainArguments.of(new HashMap<>(Map.of("sku", "SKU-4411")))).isNotNull();
	}

	/** A map not of the JDK's own may mean more than its entries: its tree says what, as before. */
	@Test
	void aMapOfAnotherClassGivesWhatItsTreeGives() {
		Map<String, Object> identical = new IdentityHashMap<>();
		identical.put(new String("sku"), "A");
		identical.put(new String("sku"), "B");
		assertThat(PlainArguments.of(identical)).isNull();
		assertSameAsTheTree(identical, "names equal but not identical");

		Annotated annotated = new Annotated();
		annotated.put("sku", "SKU-4411");
		annotated.put("internal", "x");
		assertThat(PlainArguments.of(annotated)).isNull();
		assertSameAsTheTree(annotated, "a map whose class Jackson is told to write without a name");
		assertThat(IdempotencyKeys.canonicalise(TOOL, annotated, RUN, Long.MAX_VALUE).arguments())
			.isEqualTo("{\"sku\":\"SKU-4411\"}");
	}

	/**
	 * A member whose value is null is left out of the key but stored by its name: a name the ledger cannot
	 * store is refused, on either path, as it is where the member has a value.
	 */
	@Test
	void aNullMemberWhoseNameCannotBeStoredIsRefused() {
		for (String name : List.of("no\u0000te", "no\uD83Dte")) {
			Map<String, Object> plain = new LinkedHashMap<>();
			plain.put("sku", "SKU-4411");
			plain.put(name, null);
			assertThatExceptionOfType(InvalidArgumentsException.class)
				.isThrownBy(() -> IdempotencyKeys.canonicalise(TOOL, plain, RUN, Long.MAX_VALUE))
				.withMessageContaining("has a name that");
			Map<String, Object> nested = Map.of("order", Map.of("lines", List.of(1)), "address", plain);
			assertThatExceptionOfType(InvalidArgumentsException.class)
				.isThrownBy(() -> IdempotencyKeys.canonicalise(TOOL, nested, RUN, Long.MAX_VALUE))
				.withMessageContaining("has a name that");
			String json = "{\"sku\":\"SKU-4411\",\"" + (name.contains("\u0000") ? "no\\u0000te" : "no\\ud83dte")
					+ "\":null}";
			assertThatExceptionOfType(InvalidArgumentsException.class)
				.isThrownBy(() -> IdempotencyKeys.canonicalise(TOOL, json, RUN, Long.MAX_VALUE))
				.withMessageContaining("has a name that");
			// Not stored, the key alone: the member is absent from it, and nothing is refused.
			assertThat(IdempotencyKeys.derive(TOOL, plain, RUN)).isEqualTo(IdempotencyKeys.derive(TOOL,
					Map.of("sku", "SKU-4411"), RUN));
		}
	}

	@JsonIgnoreProperties("internal")
	static final class Annotated extends LinkedHashMap<String, Object> {

		private static final long serialVersionUID = 1L;

	}

	/** The specification's vectors whose arguments read as plain Java values give the vector's key. */
	@ParameterizedTest(name = "{0}")
	@MethodSource("io.idempotency.key.KeyVectorsTest#vectors")
	void everyPlainVectorGivesItsKey(KeyVectorsTest.Vector vector) {
		Map<String, Object> arguments;
		try {
			arguments = JsonMapper.builder()
				.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
				.build()
				.readValue(vector.arguments(), Map.class);
		}
		catch (RuntimeException notAnObject) {
			return;
		}
		if (PlainArguments.of(arguments) == null) {
			return;
		}
		assertThat(IdempotencyKeys.canonicalise(vector.tool(), arguments, vector.runId(), Long.MAX_VALUE).key().value())
			.isEqualTo(vector.key());
	}

	@Test
	void theLimitOnSizeIsTheTreesToo() {
		Map<String, Object> arguments = new LinkedHashMap<>();
		arguments.put("note", "x".repeat(100));
		String stored = ArgumentsMapper.write(ArgumentsMapper.valueToTree(arguments, new Canonicaliser(TOOL, true)));
		long size = IdempotencyKeys.utf8Length(stored);
		assertThat(IdempotencyKeys.canonicalise(TOOL, arguments, RUN, size).arguments()).isEqualTo(stored);
		assertThatExceptionOfType(InvalidArgumentsException.class)
			.isThrownBy(() -> IdempotencyKeys.canonicalise(TOOL, arguments, RUN, size - 1))
			.withMessageContaining("take " + size + " bytes as JSON, more than the " + (size - 1) + " allowed");
	}

	private static void assertSameAsTheTree(Map<String, ?> arguments, String description) {
		String treeCanonical = null;
		String treeStored = null;
		String treeRefusal = null;
		Canonicaliser canonicaliser = new Canonicaliser(TOOL, true);
		try {
			var tree = ArgumentsMapper.valueToTree(arguments, canonicaliser);
			treeCanonical = canonicaliser.envelope(tree, RUN);
			treeStored = ArgumentsMapper.write(tree);
		}
		catch (InvalidArgumentsException ex) {
			treeRefusal = ex.getMessage();
		}
		CanonicalCall plain;
		try {
			plain = IdempotencyKeys.canonicalise(TOOL, arguments, RUN, Long.MAX_VALUE);
		}
		catch (InvalidArgumentsException ex) {
			assertThat(ex.getMessage()).as(description).isEqualTo(treeRefusal);
			return;
		}
		assertThat(treeRefusal).as(description).isNull();
		assertThat(plain.arguments()).as(description).isEqualTo(treeStored);
		assertThat(plain.key().value()).as(description).isEqualTo(Sha256.hex(treeCanonical.getBytes(StandardCharsets.UTF_8)));
	}

	private static String text(Random random, int maxPieces) {
		StringBuilder text = new StringBuilder();
		int pieces = random.nextInt(maxPieces + 1);
		for (int i = 0; i < pieces; i++) {
			// Rare pieces (U+0000, lone surrogates) now and then, so that most values are accepted.
			String piece = PIECES[random.nextInt(PIECES.length)];
			if ((piece.equals("\u0000") || piece.equals("\uD83D") || piece.equals("\uDE00")) && random.nextInt(8) != 0) {
				piece = "k";
			}
			text.append(piece);
		}
		return text.toString();
	}

	private static Object value(Random random) {
		return switch (random.nextInt(8)) {
			case 0 -> null;
			case 1 -> random.nextInt();
			case 2 -> random.nextLong();
			case 3 -> random.nextBoolean();
			case 4 -> switch (random.nextInt(4)) {
				case 0 -> random.nextDouble();
				case 1 -> (double) random.nextInt(1000) / 10;
				case 2 -> Double.longBitsToDouble(random.nextLong());
				default -> random.nextGaussian() * 1e20;
			};
			default -> text(random, 8);
		};
	}

}
