package io.idempotency.key;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The chosen-arguments rule of the key specification: its vectors (canonical texts written by hand, keys their
 * SHA-256), and how calls that differ only outside the key compare.
 */
class ChosenKeyArgumentsTest {

	record Vector(String name, String tool, String runId, String arguments, KeyArguments keyArguments,
			String canonical, String key) {

		@Override
		public String toString() {
			return this.name;
		}

	}

	static List<Vector> vectors() throws IOException {
		try (InputStream in = ChosenKeyArgumentsTest.class.getResourceAsStream("key-vectors-chosen-arguments.json")) {
			JsonNode root = JsonMapper.builder().build().readTree(in);
			List<Vector> vectors = new ArrayList<>();
			for (JsonNode v : root.get("vectors")) {
				KeyArguments chosen = v.has("keyArguments") ? KeyArguments.only(strings(v.get("keyArguments")))
						: KeyArguments.excluding(strings(v.get("keyExcludes")));
				vectors.add(new Vector(v.get("name").stringValue(), v.get("tool").stringValue(),
						v.get("runId").stringValue(), v.get("arguments").stringValue(), chosen,
						v.get("canonical").stringValue(), v.get("key").stringValue()));
			}
			return vectors;
		}
	}

	private static List<String> strings(JsonNode array) {
		List<String> strings = new ArrayList<>();
		array.forEach((element) -> strings.add(element.stringValue()));
		return strings;
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("vectors")
	void canonicalTextAndKeyMatchTheVector(Vector vector) {
		assertThat(IdempotencyKeys.canonicalJson(vector.tool(), vector.arguments(), vector.runId(), vector.keyArguments()))
			.isEqualTo(vector.canonical());
		assertThat(IdempotencyKeys.derive(vector.tool(), vector.arguments(), vector.runId(), vector.keyArguments()).value())
			.isEqualTo(vector.key());
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("vectors")
	void theCallIsStoredWhole(Vector vector) {
		CanonicalCall call = IdempotencyKeys.canonicalise(vector.tool(), vector.arguments(), vector.runId(), 1 << 20,
				vector.keyArguments());
		assertThat(call.key().value()).isEqualTo(vector.key());
		assertThat(JsonMapper.builder().build().readTree(call.arguments()))
			.isEqualTo(JsonMapper.builder().build().readTree(vector.arguments()));
	}

	@Test
	void everyArgumentIsTheKeyOfTheSpecificationUnchanged() {
		String arguments = "{\"accountName\":\"acme\",\"issue\":\"noise\"}";
		assertThat(IdempotencyKeys.derive("open_ticket", arguments, "r1", KeyArguments.all()))
			.isEqualTo(IdempotencyKeys.derive("open_ticket", arguments, "r1"));
		assertThat(IdempotencyKeys.derive("open_ticket", Map.of("accountName", "acme", "issue", "noise"), "r1",
				KeyArguments.only(List.of("accountName", "issue"))))
			.isEqualTo(IdempotencyKeys.derive("open_ticket", arguments, "r1"));
	}

	@Test
	void theDetailsThatDifferAreNamedAsKeysCompareValues() {
		KeyArguments chosen = KeyArguments.only(List.of("accountName", "issue"));

		assertThat(chosen.differentDetails("{\"accountName\":\"acme\",\"issue\":\"seal\",\"description\":\"Seal failure\","
				+ "\"quantity\":200,\"ship\":{\"to\":\"Leeds\",\"by\":\"road\"}}",
				"{\"accountName\":\"acme\",\"issue\":\"seal\",\"description\":\"The seal failed\",\"quantity\":200.0,"
						+ "\"ship\":{\"to\":\"Leeds \",\"by\":\"air\"},\"priority\":\"high\"}"))
			.containsExactly("description", "priority", "ship.by");
		assertThat(chosen.differentDetails("{\"a\":1,\"b\":\" x \",\"c\":null}", "{\"b\":\"x\",\"a\":1.0}")).isEmpty();
	}

	@Test
	void aPathWithAnEmptySegmentOrNoPathIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> KeyArguments.only(List.of("order..sku")))
			.withMessageContaining("'order..sku', which has an empty segment");
		assertThatIllegalArgumentException().isThrownBy(() -> KeyArguments.excluding(List.of(" ")))
			.withMessageContaining("keyExcludes must not name a blank argument");
		assertThatIllegalArgumentException().isThrownBy(() -> KeyArguments.only(List.of()))
			.withMessageContaining("keyArguments must name at least one argument");
	}

}
