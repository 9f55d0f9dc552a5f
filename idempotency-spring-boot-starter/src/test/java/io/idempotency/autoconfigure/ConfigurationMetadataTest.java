package io.idempotency.autoconfigure;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an IDE shows of the starter's properties, held to the properties themselves: every property described,
 * with the default it really has (or none, where the default is derived or absent), every group described, and
 * the hints that let an IDE complete a value.
 */
class ConfigurationMetadataTest {

	/** The properties with no fixed default: each is derived at start-up, or absent unless set. */
	private static final Set<String> WITHOUT_A_FIXED_DEFAULT = Set.of("idempotency.heartbeat.interval",
			"idempotency.jdbc.platform", "idempotency.jdbc.schema", "idempotency.reconciler.stale-after-by-tool",
			"idempotency.transaction-manager");

	private static JsonNode metadata;

	private static Map<String, JsonNode> properties;

	@BeforeAll
	static void read() throws Exception {
		try (InputStream in = ConfigurationMetadataTest.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			metadata = new JsonMapper().readTree(in);
		}
		properties = metadata.get("properties")
			.valueStream()
			.filter((property) -> property.get("name").stringValue().startsWith("idempotency.")
					|| property.get("name").stringValue().equals("management.health.idempotency.enabled"))
			.collect(Collectors.toMap((property) -> property.get("name").stringValue(), (property) -> property));
	}

	@Test
	void everyPropertyIsDescribedAndHasItsDefaultUnlessItHasNoFixedOne() {
		assertThat(properties).containsKey("management.health.idempotency.enabled");
		assertThat(properties.values()).allSatisfy((property) -> assertThat(property.has("description"))
			.as("description of %s", property.get("name"))
			.isTrue());
		Set<String> withoutDefault = properties.values()
			.stream()
			.filter((property) -> !property.has("defaultValue"))
			.map((property) -> property.get("name").stringValue())
			.collect(Collectors.toCollection(TreeSet::new));
		assertThat(withoutDefault).containsExactlyInAnyOrderElementsOf(WITHOUT_A_FIXED_DEFAULT);
	}

	@Test
	void eachDefaultIsTheValueThePropertiesHoldWhenNothingIsSet() {
		BeanWrapperImpl defaults = new BeanWrapperImpl(new IdempotencyProperties());
		List<String> checked = new ArrayList<>();
		for (JsonNode property : properties.values()) {
			String name = property.get("name").stringValue();
			if (!property.has("defaultValue") || !name.startsWith("idempotency.")) {
				continue;
			}
			String path = beanPath(name.substring("idempotency.".length()));
			Object expected = defaults.getPropertyValue(path);
			JsonNode value = property.get("defaultValue");
			if (value.isArray() && value.isEmpty()) {
				assertThat((Iterable<?>) expected).as(name).isEmpty();
				checked.add(name);
				continue;
			}
			String text = value.isArray()
					? value.valueStream().map(JsonNode::asString).collect(Collectors.joining(","))
					: value.asString();
			IdempotencyProperties bound = new Binder(new MapConfigurationPropertySource(Map.of(name, text)))
				.bind("idempotency", IdempotencyProperties.class)
				.get();
			assertThat(new BeanWrapperImpl(bound).getPropertyValue(path)).as("the default of %s", name)
				.isEqualTo(expected);
			checked.add(name);
		}
		assertThat(checked).hasSize(properties.size() - WITHOUT_A_FIXED_DEFAULT.size() - 1);
	}

	@Test
	void everyGroupIsDescribed() {
		assertThat(metadata.get("groups").valueStream()
			.filter((group) -> group.get("name").stringValue().startsWith("idempotency")))
			.isNotEmpty()
			.allSatisfy((group) -> assertThat(group.has("description")).as("description of %s", group.get("name"))
				.isTrue());
	}

	@Test
	void anIdeCanCompleteThePlatformTheTransactionManagerAndTheExceptionClasses() {
		Map<String, JsonNode> hints = metadata.get("hints")
			.valueStream()
			.collect(Collectors.toMap((hint) -> hint.get("name").stringValue(), (hint) -> hint));
		assertThat(hints.get("idempotency.jdbc.platform").get("values").valueStream().map((v) -> v.get("value").asString()))
			.containsExactlyInAnyOrder("postgresql", "mysql", "h2");
		assertThat(provider(hints, "idempotency.transaction-manager")).isEqualTo("spring-bean-reference");
		assertThat(provider(hints, "idempotency.unknown-exceptions")).isEqualTo("class-reference");
	}

	private static String provider(Map<String, JsonNode> hints, String name) {
		return hints.get(name).get("providers").get(0).get("name").asString();
	}

	/** {@code reconciler.stale-after} as the bean path {@code reconciler.staleAfter}. */
	private static String beanPath(String name) {
		StringBuilder path = new StringBuilder();
		boolean upper = false;
		for (char c : name.toCharArray()) {
			if (c == '-') {
				upper = true;
				continue;
			}
			path.append(upper ? Character.toUpperCase(c) : c);
			upper = false;
		}
		return path.toString();
	}

}
