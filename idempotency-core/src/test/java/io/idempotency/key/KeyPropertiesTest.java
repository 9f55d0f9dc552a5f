package io.idempotency.key;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.idempotency.testsupport.PropertyCheck;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The laws of the key over generated arguments. Arguments are modelled as Java values (maps, lists,
 * strings, decimals, booleans, nulls) and sent as JSON text spelt in many ways, as a model might.
 */
class KeyPropertiesTest {

	private static final String TOOL = "draft_quote";

	private static final String RUN = "run-1";

	private static final int TRIES = 1000;

	@Test
	void memberOrderAndSpellingNeverChangeTheKey() {
		PropertyCheck.forAll(TRIES, (random) -> {
			Map<String, Object> arguments = arguments(random);
			assertThat(IdempotencyKeys.derive(TOOL, JsonSpeller.spell(arguments, random), RUN))
				.isEqualTo(IdempotencyKeys.derive(TOOL, JsonSpeller.spell(arguments, random), RUN));
		});
	}

	@Test
	void canonicalisingTwiceEqualsCanonicalisingOnce() {
		PropertyCheck.forAll(TRIES, (random) -> {
			String once = IdempotencyKeys.canonicalJson(TOOL, JsonSpeller.spell(arguments(random), random), RUN);
			String canonicalArguments = once.substring("{\"arguments\":".length(), once.lastIndexOf(",\"runId\":"));
			assertThat(IdempotencyKeys.canonicalJson(TOOL, canonicalArguments, RUN)).isEqualTo(once);
		});
	}

	@Test
	void changingAnyLeafValueChangesTheKey() {
		PropertyCheck.forAll(TRIES, (random) -> {
			Map<String, Object> arguments = arguments(random);
			List<Leaf> leaves = new ArrayList<>();
			Leaf.collect(arguments, leaves);
			Leaf leaf = leaves.get(random.nextInt(leaves.size()));
			String before = JsonSpeller.spell(arguments, random);
			leaf.change();
			String after = JsonSpeller.spell(arguments, random);
			assertThat(IdempotencyKeys.derive(TOOL, after, RUN)).as("%s -> %s", before, after)
				.isNotEqualTo(IdempotencyKeys.derive(TOOL, before, RUN));
		});
	}

	@Test
	void nullMembersEqualAbsentOnes() {
		PropertyCheck.forAll(TRIES, (random) -> {
			Map<String, Object> arguments = arguments(random);
			IdempotencyKey key = IdempotencyKeys.derive(TOOL, JsonSpeller.spell(arguments, random), RUN);
			List<Map<String, Object>> objects = new ArrayList<>();
			Leaf.collectObjects(arguments, objects);
			objects.get(random.nextInt(objects.size())).put("absent-" + random.nextInt(10_000), null);
			assertThat(IdempotencyKeys.derive(TOOL, JsonSpeller.spell(arguments, random), RUN)).isEqualTo(key);
			Leaf.removeNullMembers(arguments);
			assertThat(IdempotencyKeys.derive(TOOL, JsonSpeller.spell(arguments, random), RUN)).isEqualTo(key);
		});
	}

	@Test
	void aNewRunIdAlwaysGivesANewKey() {
		PropertyCheck.forAll(TRIES, (random) -> {
			Map<String, Object> arguments = arguments(random);
			String firstRun = runId(random);
			String secondRun = runId(random);
			while (secondRun.equals(firstRun)) {
				secondRun = runId(random);
			}
			assertThat(IdempotencyKeys.derive(TOOL, arguments, firstRun))
				.isNotEqualTo(IdempotencyKeys.derive(TOOL, arguments, secondRun));
		});
	}

	@Test
	void javaValuesAndTheirJsonTextHaveOneKey() {
		PropertyCheck.forAll(TRIES, (random) -> {
			Map<String, Object> arguments = arguments(random);
			assertThat(IdempotencyKeys.derive(TOOL, arguments, RUN))
				.isEqualTo(IdempotencyKeys.derive(TOOL, JsonSpeller.spell(arguments, random), RUN));
		});
	}

	private static String runId(Random random) {
		String runId = text(random, 10);
		return runId.isBlank() ? runId + "r" : runId;
	}

	/** Arguments as Java values: objects up to three deep of strings, decimals, booleans and nulls. */
	static Map<String, Object> arguments(Random random) {
		return object(random, 3);
	}

	private static Map<String, Object> object(Random random, int depth) {
		Map<String, Object> object = new LinkedHashMap<>();
		int size = random.nextInt(6);
		for (int i = 0; i < size; i++) {
			object.put(text(random, 6), value(random, depth));
		}
		return object;
	}

	private static Object value(Random random, int depth) {
		int kind = random.nextInt(8);
		if (depth > 0 && kind == 6) {
			return object(random, depth - 1);
		}
		if (depth > 0 && kind == 7) {
			List<Object> list = new ArrayList<>();
			int size = random.nextInt(5);
			for (int i = 0; i < size; i++) {
				list.add(value(random, depth - 1));
			}
			return list;
		}
		if (random.nextInt(100) < 15) {
			return null;
		}
		return switch (random.nextInt(3)) {
			case 0 -> text(random, 10);
			case 1 -> BigDecimal.valueOf(random.nextLong() >> random.nextInt(64), random.nextInt(25) - 12);
			default -> random.nextBoolean();
		};
	}

	/** Characters that make canonicalisation work: white space of every kind, and composed or combining forms. */
	private static final String SPECIAL = " \t\n\u00a0\u2007\u202f\ufeff\u3000\u0301\u0065\u00e9";

	/** Strings of any characters but lone surrogates, with white space and combining marks well represented. */
	private static String text(Random random, int maxLength) {
		int length = random.nextInt(maxLength + 1);
		StringBuilder text = new StringBuilder(length);
		for (int i = 0; i < length; i++) {
			text.append(switch (random.nextInt(4)) {
				case 0 -> SPECIAL.charAt(random.nextInt(SPECIAL.length()));
				case 1 -> (char) (0x20 + random.nextInt(0x5f));
				default -> {
					char c = (char) random.nextInt(0xD800 + 0x2000);
					yield (c < 0xD800) ? c : (char) (c + 0x800);
				}
			});
		}
		return text.toString();
	}

	/** A deep, mutable copy, since the generated maps may share structure. */
	@SuppressWarnings("unchecked")
	static <T> T copy(T value) {
		if (value instanceof Map<?, ?> map) {
			Map<String, Object> copy = new LinkedHashMap<>();
			map.forEach((k, v) -> copy.put((String) k, copy(v)));
			return (T) copy;
		}
		if (value instanceof List<?> list) {
			List<Object> copy = new ArrayList<>();
			list.forEach((v) -> copy.add(copy(v)));
			return (T) copy;
		}
		return value;
	}

	/** A place in the arguments whose value can be changed into a different intent. */
	record Leaf(Object container, Object slot) {

		@SuppressWarnings("unchecked")
		static void collect(Object value, List<Leaf> leaves) {
			if (value instanceof Map<?, ?> map) {
				map.forEach((name, member) -> {
					if (isEmptyOrScalar(member)) {
						leaves.add(new Leaf(map, name));
					}
					collect(member, leaves);
				});
				if (map.isEmpty()) {
					leaves.add(new Leaf(map, null));
				}
			}
			else if (value instanceof List<?> list) {
				for (int i = 0; i < list.size(); i++) {
					if (isEmptyOrScalar(list.get(i))) {
						leaves.add(new Leaf(list, i));
					}
					collect(list.get(i), leaves);
				}
			}
		}

		@SuppressWarnings("unchecked")
		static void collectObjects(Object value, List<Map<String, Object>> objects) {
			if (value instanceof Map<?, ?> map) {
				objects.add((Map<String, Object>) map);
				map.values().forEach((v) -> collectObjects(v, objects));
			}
			else if (value instanceof List<?> list) {
				list.forEach((v) -> collectObjects(v, objects));
			}
		}

		static void removeNullMembers(Object value) {
			if (value instanceof Map<?, ?> map) {
				map.values().removeIf((v) -> v == null);
				map.values().forEach(Leaf::removeNullMembers);
			}
			else if (value instanceof List<?> list) {
				list.forEach(Leaf::removeNullMembers);
			}
		}

		private static boolean isEmptyOrScalar(Object value) {
			return !(value instanceof Map<?, ?> map && !map.isEmpty()) && !(value instanceof List<?> list && !list.isEmpty());
		}

		@SuppressWarnings("unchecked")
		void change() {
			if (this.slot == null) {
				((Map<String, Object>) this.container).put("added", 0);
			}
			else if (this.container instanceof Map<?, ?> map) {
				((Map<String, Object>) map).put((String) this.slot, changed(map.get(this.slot)));
			}
			else {
				List<Object> list = (List<Object>) this.container;
				list.set((Integer) this.slot, changed(list.get((Integer) this.slot)));
			}
		}

		@SuppressWarnings("unchecked")
		private static Object changed(Object value) {
			if (value == null) {
				return BigDecimal.ZERO;
			}
			if (value instanceof String s) {
				return s + "x";
			}
			if (value instanceof BigDecimal n) {
				return n.add(BigDecimal.ONE);
			}
			if (value instanceof Boolean b) {
				return !b;
			}
			if (value instanceof Map<?, ?> map) {
				((Map<String, Object>) map).put("added", 0);
				return map;
			}
			List<Object> list = (List<Object>) value;
			list.add(0);
			return list;
		}

	}

	/** Writes the same arguments as JSON text in one of its many spellings. */
	static final class JsonSpeller {

		private static final String[] WHITE_SPACE = { "", "", " ", "\n", "\t", "\r\n  " };

		private JsonSpeller() {
		}

		static String spell(Object value, Random random) {
			StringBuilder out = new StringBuilder();
			write(value, random, out);
			return out.toString();
		}

		private static void write(Object value, Random random, StringBuilder out) {
			out.append(WHITE_SPACE[random.nextInt(WHITE_SPACE.length)]);
			if (value == null) {
				out.append("null");
			}
			else if (value instanceof Map<?, ?> map) {
				List<Map.Entry<?, ?>> members = new ArrayList<>(map.entrySet());
				Collections.shuffle(members, random);
				out.append('{');
				for (int i = 0; i < members.size(); i++) {
					out.append(i > 0 ? "," : "");
					writeString((String) members.get(i).getKey(), random, out);
					out.append(WHITE_SPACE[random.nextInt(WHITE_SPACE.length)]).append(':');
					write(members.get(i).getValue(), random, out);
				}
				out.append('}');
			}
			else if (value instanceof List<?> list) {
				out.append('[');
				for (int i = 0; i < list.size(); i++) {
					out.append(i > 0 ? "," : "");
					write(list.get(i), random, out);
				}
				out.append(']');
			}
			else if (value instanceof String s) {
				writeString(s, random, out);
			}
			else if (value instanceof BigDecimal n) {
				out.append(spellNumber(n, random));
			}
			else {
				out.append(value);
			}
			out.append(WHITE_SPACE[random.nextInt(WHITE_SPACE.length)]);
		}

		private static String spellNumber(BigDecimal n, Random random) {
			return switch (random.nextInt(4)) {
				case 0 -> n.toString();
				case 1 -> n.toPlainString() + (n.scale() > 0 ? "000" : ".000");
				case 2 -> n.unscaledValue() + "E" + (-n.scale());
				default -> n.unscaledValue() + "e" + (-n.scale());
			};
		}

		private static void writeString(String s, Random random, StringBuilder out) {
			out.append('"');
			for (char c : s.toCharArray()) {
				if (c == '"' || c == '\\') {
					out.append('\\').append(c);
				}
				else if (c < 0x20 || c > 0x7e && random.nextInt(4) == 0) {
					out.append(String.format("\\u%04X", (int) c));
				}
				else {
					out.append(c);
				}
			}
			out.append('"');
		}

	}

}
