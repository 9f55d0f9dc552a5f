package io.idempotency.key;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every public vector of key specification version 1 (a copy of the specification's
 * {@code key-vectors.json}): any implementation must reproduce both the canonical text and the key.
 */
class KeyVectorsTest {

	record Vector(String name, String tool, String runId, String arguments, String canonical, String key) {

		@Override
		public String toString() {
			return this.name;
		}

	}

	static List<Vector> vectors() throws IOException {
		try (InputStream in = KeyVectorsTest.class.getResourceAsStream("key-vectors.json")) {
			JsonNode root = JsonMapper.builder().build().readTree(in);
			assertThat(root.get("spec").stringValue()).isEqualTo("KEY-SPEC.md version 1");
			return root.get("vectors")
				.valueStream()
				.map((v) -> new Vector(v.get("name").stringValue(), v.get("tool").stringValue(),
						v.get("runId").stringValue(), v.get("arguments").stringValue(),
						v.get("canonical").stringValue(), v.get("key").stringValue()))
				.toList();
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("vectors")
	void canonicalTextMatchesTheVector(Vector vector) {
		assertThat(IdempotencyKeys.canonicalJson(vector.tool(), vector.arguments(), vector.runId()))
			.isEqualTo(vector.canonical());
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("vectors")
	void keyMatchesTheVector(Vector vector) {
		assertThat(IdempotencyKeys.derive(vector.tool(), vector.arguments(), vector.runId()).value())
			.isEqualTo(vector.key());
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("vectors")
	void theCanonicalTextIsAFixedPoint(Vector vector) {
		String canonical = vector.canonical();
		String arguments = canonical.substring("{\"arguments\":".length(), canonical.indexOf(",\"runId\":"));
		assertThat(IdempotencyKeys.derive(vector.tool(), arguments, vector.runId()).value()).isEqualTo(vector.key());
	}

}
