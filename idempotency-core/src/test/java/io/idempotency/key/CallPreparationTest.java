package io.idempotency.key;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A tool call prepared for the ledger: the key from the canonical form, the stored arguments as the tool
 * received them, and one depth limit, enforced before anything is claimed.
 */
class CallPreparationTest {

	record Ticket(String accountName, String issue) {
	}

	public static class Tools {

		public String openTicket(String accountName, String issue) {
			return accountName + issue;
		}

		public String openTickets(Ticket ticket, List<String> tags) {
			return ticket + " " + tags;
		}

		public String store(Object payload) {
			return String.valueOf(payload);
		}

	}

	private static Method method(String name) {
		for (Method method : Tools.class.getMethods()) {
			if (method.getName().equals(name)) {
				return method;
			}
		}
		throw new IllegalArgumentException(name);
	}

	@Test
	void theStoredArgumentsAreWhatTheToolReceivedWhileTheKeyIsCanonical() {
		CanonicalCall call = IdempotencyKeys.canonicalise("open_ticket", method("openTicket"),
				new Object[] { "  Henderson Industrial", "Pump noise\n" }, "r1");

		JsonNode stored = IdempotencyKeys.argumentsMapper().readTree(call.arguments());
		assertThat(stored.get("accountName").stringValue()).isEqualTo("  Henderson Industrial");
		assertThat(stored.get("issue").stringValue()).isEqualTo("Pump noise\n");
		assertThat(call.key()).isEqualTo(IdempotencyKeys.derive("open_ticket",
				"{\"accountName\":\"Henderson Industrial\",\"issue\":\"Pump noise\"}", "r1"));
	}

	@Test
	void storedArgumentsReadBackAsTheParametersTheToolReceived() {
		Ticket ticket = new Ticket("Acme ", "Seal failure\u0301");
		CanonicalCall call = IdempotencyKeys.canonicalise("open_tickets", method("openTickets"),
				new Object[] { ticket, List.of(" urgent") }, "r1");

		JsonNode stored = IdempotencyKeys.argumentsMapper().readTree(call.arguments());
		assertThat(IdempotencyKeys.argumentsMapper().treeToValue(stored.get("ticket"), Ticket.class)).isEqualTo(ticket);
		assertThat(stored.get("tags").get(0).stringValue()).isEqualTo(" urgent");
	}

	@Test
	void aStringWithU0000IsRefusedByPathBeforeAnythingIsClaimed() {
		assertThatThrownBy(() -> IdempotencyKeys.canonicalise("open_ticket", method("openTicket"),
				new Object[] { "Acme", "seal\u0000failure" }, "r1"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class, (ex) -> assertThat(ex.path()).isEqualTo("issue"))
			.hasMessageContaining("U+0000");
		assertThatThrownBy(() -> IdempotencyKeys.canonicalise("store", method("store"),
				new Object[] { Map.of("a\u0000b", 1) }, "r1"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class, (ex) -> assertThat(ex.path()).startsWith("payload"))
			.hasMessageContaining("has a name that contains the character U+0000");
	}

	@Test
	void aKeyAloneMayCoverU0000AsTheSpecificationAllows() {
		assertThat(IdempotencyKeys.derive("t", Map.of("note", "a\u0000b"), "r1")).isNotNull();
	}

	@Test
	void argumentsAtTheDepthLimitAreAccepted() {
		Object payload = nested(IdempotencyKeys.MAX_DEPTH - 1);
		CanonicalCall call = IdempotencyKeys.canonicalise("store", method("store"), new Object[] { payload }, "r1");
		assertThat(IdempotencyKeys.argumentsMapper().readTree(call.arguments())).isNotNull();
	}

	@Test
	void javaArgumentsNestedTooDeepAreRefusedWithThePathWhereTheLimitWasPassed() {
		Object payload = nested(600);
		assertThatThrownBy(() -> IdempotencyKeys.canonicalise("store", method("store"), new Object[] { payload }, "r1"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class,
					(ex) -> assertThat(ex.path()).isEqualTo("payload" + ".a".repeat(IdempotencyKeys.MAX_DEPTH)))
			.hasMessageContaining("nested deeper than the " + IdempotencyKeys.MAX_DEPTH + " levels allowed");
	}

	@Test
	void jsonArgumentsNestedTooDeepAreRefusedWithThePath() {
		String json = "{\"a\":".repeat(200) + "1" + "}".repeat(200);
		assertThatThrownBy(() -> IdempotencyKeys.derive("t", json, "r1"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class, (ex) -> assertThat(ex.path()).startsWith("a.a.a"))
			.hasMessageContaining("nested deeper than the " + IdempotencyKeys.MAX_DEPTH + " levels allowed");
	}

	@Test
	void aCyclicJavaArgumentIsRefusedWithAPath() {
		List<Object> list = new ArrayList<>();
		Map<String, Object> map = new HashMap<>();
		map.put("list", list);
		list.add(map);
		assertThatThrownBy(() -> IdempotencyKeys.canonicalise("store", method("store"), new Object[] { map }, "r1"))
			.isInstanceOfSatisfying(InvalidArgumentsException.class,
					(ex) -> assertThat(ex.path()).startsWith("payload.list[0].list[0]"))
			.hasMessageContaining("nested deeper than the " + IdempotencyKeys.MAX_DEPTH + " levels allowed");
	}

	/** Maps of maps, {@code depth} levels below the parameter: {@code {"a":{"a":...{"a":1}}}}. */
	private static Object nested(int depth) {
		Object value = 1;
		for (int i = 0; i < depth; i++) {
			Map<String, Object> map = new HashMap<>();
			map.put("a", value);
			value = map;
		}
		return value;
	}

}
