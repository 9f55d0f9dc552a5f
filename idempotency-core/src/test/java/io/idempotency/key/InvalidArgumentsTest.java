package io.idempotency.key;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad input is refused with an error that names what was wrong and where. */
class InvalidArgumentsTest {

	record Item(String sku, double price) {
	}

	record Order(String account, List<Item> items) {
	}

	@ParameterizedTest
	@ValueSource(doubles = { Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY })
	void nonFiniteNumbersAreRefusedByName(double value) {
		assertThatThrownBy(() -> IdempotencyKeys.derive("draft_quote", Map.of("quantity", value), "r"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class, (ex) -> {
				assertThat(ex.path()).isEqualTo("quantity");
				assertThat(ex.tool()).isEqualTo("draft_quote");
			})
			.hasMessageContaining("argument 'quantity'")
			.hasMessageContaining(String.valueOf(value));
	}

	@Test
	void aNonFiniteFloatIsRefused() {
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", Map.of("ratio", Float.NaN), "r"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class, (ex) -> assertThat(ex.path()).isEqualTo("ratio"));
	}

	@Test
	void aNestedArgumentIsNamedByItsPath() {
		Order order = new Order("Henderson", List.of(new Item("A", 1), new Item("B", 2), new Item("C", Double.NaN)));
		assertThatThrownBy(() -> IdempotencyKeys.derive("draft_quote", Map.of("order", order), "r"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class,
					(ex) -> assertThat(ex.path()).isEqualTo("order.items[2].price"))
			.hasMessageContaining("'order.items[2].price'");
	}

	@Test
	void numbersTooLongForTheSpecificationAreRefused() {
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", "{\"a\":{\"b\":[1e1000]}}", "r"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class, (ex) -> assertThat(ex.path()).isEqualTo("a.b[0]"))
			.hasMessageContaining("1001 digits");
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", "{\"a\":1e-1000}", "r"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class, (ex) -> assertThat(ex.path()).isEqualTo("a"));
		String longLiteral = "9".repeat(20_000);
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", "{\"a\":" + longLiteral + "}", "r"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class, (ex) -> assertThat(ex.path()).isEqualTo("a"));
	}

	@Test
	void numbersAtTheLimitAreAccepted() {
		assertThat(IdempotencyKeys.canonicalJson("t", "{\"a\":1e999}", "r")).contains("1" + "0".repeat(999));
		assertThat(IdempotencyKeys.canonicalJson("t", "{\"a\":1" + ".0".repeat(1) + "0".repeat(3000) + "}", "r"))
			.contains("\"a\":1}");
	}

	@ParameterizedTest
	@ValueSource(strings = { "[1,2]", "\"text\"", "42", "true", "null", "", "   " })
	void argumentsThatAreNotAnObjectAreRefused(String json) {
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", json, "r"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class, (ex) -> assertThat(ex.path()).isEmpty())
			.hasMessageContaining("the arguments must be a JSON object");
	}

	@Test
	void nullArgumentsAreRefused() {
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", (String) null, "r"))
			.isInstanceOf(InvalidArgumentsException.class)
			.hasMessageContaining("must be a JSON object, but are null");
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", (Map<String, ?>) null, "r"))
			.isInstanceOf(InvalidArgumentsException.class);
	}

	@Test
	void malformedJsonIsRefusedWithTheSpotNamed() {
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", "{\"sku\":\"A\",\"items\":[{\"qty\":}]}", "r"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class,
					(ex) -> assertThat(ex.path()).isEqualTo("items[0].qty"))
			.hasMessageContaining("not valid JSON");
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", "{\"sku\":", "r"))
			.isInstanceOf(InvalidArgumentsException.class)
			.hasMessageContaining("not valid JSON");
	}

	@Test
	void nonStandardNumbersInJsonAreRefused() {
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", "{\"quantity\":NaN}", "r"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class, (ex) -> assertThat(ex.path()).isEqualTo("quantity"));
	}

	@Test
	void trailingContentIsRefused() {
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", "{\"a\":1}{\"a\":2}", "r"))
			.isInstanceOf(InvalidArgumentsException.class)
			.hasMessageContaining("not valid JSON");
	}

	@Test
	void aDuplicateMemberIsRefusedBecauseItsIntentIsAmbiguous() {
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", "{\"o\":{\"sku\":\"A\",\"sku\":\"B\"}}", "r"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class, (ex) -> assertThat(ex.path()).startsWith("o"))
			.hasMessageContaining("sku");
	}

	@Test
	void aLoneSurrogateIsRefusedBecauseItHasNoUtf8Form() {
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", "{\"note\":\"broken \\ud83d here\"}", "r"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class, (ex) -> assertThat(ex.path()).isEqualTo("note"))
			.hasMessageContaining("lone surrogate U+D83D");
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", Map.of("x\uDC00", 1), "r"))
			.isInstanceOf(InvalidArgumentsException.class)
			.hasMessageContaining("has a name that holds a lone surrogate");
	}

	@ParameterizedTest
	@ValueSource(strings = { "", " ", "\t\n" })
	void aBlankToolIsRefused(String tool) {
		assertThatIllegalArgumentException().isThrownBy(() -> IdempotencyKeys.derive(tool, "{}", "r"))
			.withMessageStartingWith("tool must not be blank");
	}

	@ParameterizedTest
	@ValueSource(strings = { "", " ", "\t\n" })
	void aBlankRunIdIsRefused(String runId) {
		assertThatIllegalArgumentException().isThrownBy(() -> IdempotencyKeys.derive("t", "{}", runId))
			.withMessageStartingWith("runId must not be blank");
	}

	@Test
	void aToolOrRunIdWithALoneSurrogateIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> IdempotencyKeys.derive("t", "{}", "run-\ud800"))
			.withMessageStartingWith("runId 'run-\ud800' holds a lone surrogate U+D800")
			.isNotInstanceOf(InvalidArgumentsException.class);
		assertThatIllegalArgumentException().isThrownBy(() -> IdempotencyKeys.derive("t\udfff", "{}", "r"))
			.withMessageStartingWith("tool 't\udfff' holds a lone surrogate U+DFFF");
	}

	@Test
	void nullToolOrRunIdIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> IdempotencyKeys.derive(null, "{}", "r"))
			.withMessage("tool must not be blank, but was null");
		assertThatIllegalArgumentException().isThrownBy(() -> IdempotencyKeys.derive("t", Map.of(), null))
			.withMessage("runId must not be blank, but was null");
	}

	@Test
	void aCyclicObjectGraphIsRefused() {
		List<Object> list = new ArrayList<>();
		Map<String, Object> map = new HashMap<>();
		map.put("list", list);
		list.add(map);
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", Map.of("graph", map), "r"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class,
					(ex) -> assertThat(ex.path()).startsWith("graph.list[0].list[0]"))
			.hasMessageContaining("nested deeper than the " + IdempotencyKeys.MAX_DEPTH + " levels allowed")
			.hasMessageContaining("cyclic");
	}

	static final class Opaque {

	}

	@Test
	void aValueThatCannotBeWrittenAsJsonIsRefusedByName() {
		Map<String, Object> arguments = new LinkedHashMap<>();
		arguments.put("sku", "A");
		arguments.put("handle", new Opaque());
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", arguments, "r"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class, (ex) -> assertThat(ex.path()).isEqualTo("handle"))
			.hasMessageContaining("cannot be written as JSON");
	}

	@Test
	void anUnusualMemberNameIsQuotedInThePath() {
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", Map.of("unit price", Double.NaN), "r"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class,
					(ex) -> assertThat(ex.path()).isEqualTo("[\"unit price\"]"));
	}

}
