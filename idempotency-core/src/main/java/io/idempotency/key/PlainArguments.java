package io.idempotency.key;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Arguments that are all plain values, as most tool calls' are: a string, an {@code int}, {@code long} or
 * {@code double}, a boolean, or {@code null}, each by its name. They are written as they are, in canonical form
 * ({@link Canonicaliser#envelope(PlainArguments, String)}) and as stored JSON
 * ({@link ArgumentsMapper#write(PlainArguments)}), without a JSON tree, giving the text the tree gives.
 * Read from the map once, in its order.
 */
final class PlainArguments {

	/**
	 * The maps whose arguments are read so: the JDK's own, whose names are distinct and which Jackson writes as
	 * they iterate. A map of another class may carry Jackson annotations, or hold names equal but not
	 * identical: its tree says what it means.
	 */
	private static final Set<Class<?>> MAPS = Set.copyOf(List.of(LinkedHashMap.class, HashMap.class,
			Map.of().getClass(), Map.of("a", 1).getClass(), Map.of("a", 1, "b", 2).getClass()));

	private final String[] names;

	private final Object[] values;

	private PlainArguments(String[] names, Object[] values) {
		this.names = names;
		this.values = values;
	}

	/** The arguments as plain ones, or {@code null} where any is not plain or the map is not one of the JDK's. */
	static PlainArguments of(Map<?, ?> arguments) {
		if (!MAPS.contains(arguments.getClass())) {
			return null;
		}
		String[] names = new String[arguments.size()];
		Object[] values = new Object[names.length];
		int i = 0;
		for (Map.Entry<?, ?> argument : arguments.entrySet()) {
			Object value = argument.getValue();
			if (i == names.length || !(argument.getKey() instanceof String name) || !isPlain(value)) {
				return null;
			}
			names[i] = name;
			values[i++] = value;
		}
		return (i == names.length) ? new PlainArguments(names, values) : null;
	}

	private static boolean isPlain(Object value) {
		return value == null || value instanceof String || value instanceof Integer || value instanceof Long
				|| value instanceof Double || value instanceof Boolean;
	}

	int size() {
		return this.names.length;
	}

	String name(int index) {
		return this.names[index];
	}

	Object value(int index) {
		return this.values[index];
	}

}
