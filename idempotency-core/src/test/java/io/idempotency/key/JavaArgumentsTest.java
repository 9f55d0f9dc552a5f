package io.idempotency.key;

import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** A Java method invocation derives the same key as the same call sent as JSON text. */
class JavaArgumentsTest {

	enum Priority {

		LOW, HIGH

	}

	record Line(String sku, int quantity, double unitPrice) {
	}

	record Ticket(String accountName, String issue, Priority priority, LocalDate due, Instant reportedAt,
			List<Line> lines, String note) {
	}

	static class Tools {

		public String draftQuote(String accountName, String sku, int quantity) {
			return accountName + sku + quantity;
		}

		public String openTicket(Ticket ticket, boolean notify) {
			return ticket.issue() + notify;
		}

	}

	private static final Ticket TICKET = new Ticket(" Henderson Industrial", "seal failure", Priority.HIGH,
			LocalDate.of(2026, 12, 3), Instant.parse("2026-12-02T09:30:00Z"),
			List.of(new Line("SKU-4411", 2, 19.99), new Line("SKU-4480", 1, 0.1)), null);

	private static final String TICKET_JSON = """
			{"notify": true, "ticket": {"lines": [{"unitPrice": 19.99, "quantity": 2, "sku": "SKU-4411"},
			  {"sku": "SKU-4480", "quantity": 1, "unitPrice": 0.10}], "priority": "HIGH", "issue": "seal failure",
			  "due": "2026-12-03", "reportedAt": "2026-12-02T09:30:00Z", "accountName": "Henderson Industrial"}}
			""";

	@Test
	void aMethodInvocationHasTheKeyOfTheSameCallAsJson() throws Exception {
		Method method = Tools.class.getMethod("draftQuote", String.class, String.class, int.class);
		IdempotencyKey fromInvocation = IdempotencyKeys.derive("draft_quote", method,
				new Object[] { "Henderson Industrial", "SKU-4411", 200 }, "r1");
		assertThat(fromInvocation).isEqualTo(IdempotencyKeys.derive("draft_quote",
				"{\"quantity\":200,\"sku\":\"SKU-4411\",\"accountName\":\"Henderson Industrial\"}", "r1"));
	}

	@Test
	void recordsAreObjectsOfTheirPropertiesAndDatesAreIsoText() throws Exception {
		Method method = Tools.class.getMethod("openTicket", Ticket.class, boolean.class);
		IdempotencyKey fromInvocation = IdempotencyKeys.derive("open_ticket", method, new Object[] { TICKET, true },
				"r1");
		assertThat(fromInvocation).isEqualTo(IdempotencyKeys.derive("open_ticket", TICKET_JSON, "r1"));
	}

	@Test
	void theApplicationsJsonSettingsChangeNoKey() {
		// An application that names properties in snake_case, leaves out nulls and writes dates as numbers
		// would send other JSON for the same call. Had the key been derived with the application's mapper,
		// it would change with these settings; the key is derived with the library's own mapper, so it
		// stays the key of the call as the method declares it.
		JsonMapper applicationMapper = JsonMapper.builder()
			.propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
			.changeDefaultPropertyInclusion((incl) -> incl.withValueInclusion(JsonInclude.Include.NON_NULL))
			.enable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
			.build();
		String applicationJson = "{\"notify\":true,\"ticket\":" + applicationMapper.writeValueAsString(TICKET) + "}";
		IdempotencyKey expected = IdempotencyKeys.derive("open_ticket", TICKET_JSON, "r1");

		assertThat(IdempotencyKeys.derive("open_ticket", applicationJson, "r1")).isNotEqualTo(expected);
		assertThat(IdempotencyKeys.derive("open_ticket", Map.of("ticket", TICKET, "notify", true), "r1"))
			.isEqualTo(expected);
	}

	@Test
	void doublesAreTheirShortestRoundTripDecimal() {
		// JDK 17's Double.toString writes 1.0E23 as 9.999999999999999E22 and 2.82879384806159E17 with two
		// extra digits; the specification asks for the shortest decimal that reads back as the value.
		Map<String, Object> arguments = new LinkedHashMap<>();
		arguments.put("a", 1.0E23);
		arguments.put("b", 2.82879384806159E17);
		arguments.put("c", 0.1);
		arguments.put("d", 0.1f);
		arguments.put("e", -0.0);
		arguments.put("f", 200.0);
		arguments.put("g", 1.5e-7);
		assertThat(IdempotencyKeys.canonicalJson("t", arguments, "r")).isEqualTo("{\"arguments\":{"
				+ "\"a\":100000000000000000000000,\"b\":282879384806159000,\"c\":0.1,\"d\":0.1,\"e\":0,"
				+ "\"f\":200,\"g\":0.00000015},\"runId\":\"r\",\"tool\":\"t\"}");
	}

	@Test
	void exactNumbersStayExact() {
		Map<String, Object> arguments = new LinkedHashMap<>();
		arguments.put("big", new BigInteger("9007199254740993"));
		arguments.put("long", 9007199254740993L);
		arguments.put("decimal", new BigDecimal("12.340"));
		arguments.put("scaled", new BigDecimal("2E+2"));
		assertThat(IdempotencyKeys.derive("t", arguments, "r"))
			.isEqualTo(IdempotencyKeys.derive("t", "{\"big\":9007199254740993,\"long\":9007199254740993,"
					+ "\"decimal\":12.34,\"scaled\":200}", "r"));
	}

	@Test
	void absentAndNullAndEmptyOptionalAreTheSameIntent() {
		Map<String, Object> withNull = new LinkedHashMap<>();
		withNull.put("sku", "A");
		withNull.put("note", null);
		Map<String, Object> withEmpty = new LinkedHashMap<>();
		withEmpty.put("sku", "A");
		withEmpty.put("note", Optional.empty());
		IdempotencyKey absent = IdempotencyKeys.derive("t", Map.of("sku", "A"), "r");
		assertThat(IdempotencyKeys.derive("t", withNull, "r")).isEqualTo(absent);
		assertThat(IdempotencyKeys.derive("t", withEmpty, "r")).isEqualTo(absent);
		assertThat(IdempotencyKeys.derive("t", Map.of("sku", "A", "note", Optional.of("x")), "r"))
			.isEqualTo(IdempotencyKeys.derive("t", "{\"sku\":\"A\",\"note\":\"x\"}", "r"));
	}

	@Test
	void stringsAreTrimmedAndNormalisedLikeJsonText() {
		assertThat(IdempotencyKeys.derive("t", Map.of("s", "\u00a0Cafe\u0301\u3000", "c", 'x'), "r"))
			.isEqualTo(IdempotencyKeys.derive("t", "{\"s\":\"Caf\u00e9\",\"c\":\"x\"}", "r"));
	}

	@Test
	void bytesAreTheirBase64Text() {
		assertThat(IdempotencyKeys.derive("t", Map.of("data", new byte[] { 1, 2, 3 }), "r"))
			.isEqualTo(IdempotencyKeys.derive("t", "{\"data\":\"AQID\"}", "r"));
	}

	@Test
	void theInvocationMustMatchTheMethod() throws Exception {
		Method method = Tools.class.getMethod("draftQuote", String.class, String.class, int.class);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> IdempotencyKeys.derive("draft_quote", method, new Object[] { "A" }, "r"))
			.withMessageContaining("takes 3 arguments, but 1 were given");
	}

	/** A payment as a model sends it: the amount is read from the request, never written back. */
	record Payment(String account, @com.fasterxml.jackson.annotation.JsonProperty(
			access = com.fasterxml.jackson.annotation.JsonProperty.Access.WRITE_ONLY) BigDecimal amount) {
	}

	@com.fasterxml.jackson.annotation.JsonIgnoreProperties(value = "reference", allowSetters = true)
	@JsonInclude(JsonInclude.Include.NON_EMPTY)
	record Transfer(String account, String reference, String memo) {
	}

	static class Payments {

		public String pay(Payment payment) {
			return payment.account();
		}

		public String transfer(Transfer transfer) {
			return transfer.account();
		}

	}

	@Test
	void membersTheToolReceivesButItsTypeDoesNotWriteArePartOfTheKey() throws Exception {
		Method pay = Payments.class.getMethod("pay", Payment.class);
		IdempotencyKey first = IdempotencyKeys.derive("pay", pay, new Object[] { new Payment("acme", new BigDecimal("1000")) }, "r1");
		IdempotencyKey corrected = IdempotencyKeys.derive("pay", pay, new Object[] { new Payment("acme", new BigDecimal("100")) }, "r1");

		assertThat(corrected).as("a retry with a corrected amount is another call").isNotEqualTo(first);
		assertThat(first).isEqualTo(IdempotencyKeys.derive("pay", "{\"payment\":{\"account\":\"acme\",\"amount\":1000}}", "r1"));
		assertThat(IdempotencyKeys.canonicalise("pay", pay, new Object[] { new Payment("acme", BigDecimal.TEN) }, "r1")
			.arguments()).as("stored as the tool received it").contains("\"amount\":10");
	}

	@Test
	void namesIgnoredOnlyForWritingAndValuesAnInclusionRuleDropsArePartOfTheKey() throws Exception {
		Method transfer = Payments.class.getMethod("transfer", Transfer.class);

		assertThat(IdempotencyKeys.derive("transfer", transfer, new Object[] { new Transfer("acme", "R-1", null) }, "r1"))
			.isNotEqualTo(IdempotencyKeys.derive("transfer", transfer, new Object[] { new Transfer("acme", "R-2", null) }, "r1"));
		assertThat(IdempotencyKeys.derive("transfer", transfer, new Object[] { new Transfer("acme", "R-1", "") }, "r1"))
			.as("an empty memo is not an absent one")
			.isNotEqualTo(IdempotencyKeys.derive("transfer", transfer, new Object[] { new Transfer("acme", "R-1", null) }, "r1"));
	}

}
