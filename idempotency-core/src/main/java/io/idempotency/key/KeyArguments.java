package io.idempotency.key;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Which of a call's arguments make up its key: all of them (the default), only those a tool names, or all but
 * those it names. A tool whose model may rephrase a free-text argument on a repeat keys on the arguments that
 * name the action (the account and the issue) and leaves out the one it rephrases (the description). The
 * ledger stores every argument either way.
 *
 * <p>A path names a member of the arguments object ({@code accountName}), or a member deeper inside, its
 * segments separated by dots ({@code ticket.description}); along the way, an array's elements are each
 * walked ({@code items.note} is the note of every item). Kept ({@link #only}): of each object on a path, only
 * the members on some path, and the member at a path's end whole. Left out ({@link #excluding}): the member at
 * each path's end. A member a call does not have contributes nothing. The arguments selected are then
 * canonicalised and hashed as every key is.
 */
public final class KeyArguments {

	private static final KeyArguments ALL = new KeyArguments(Set.of(), false);

	private final Set<String> paths;

	private final boolean only;

	private final PathTree tree;

	private KeyArguments(Set<String> paths, boolean only) {
		this.paths = paths;
		this.only = only;
		this.tree = PathTree.of(paths);
	}

	/** Every argument: the key of the specification's step 1, unchanged. */
	public static KeyArguments all() {
		return ALL;
	}

	/**
	 * Only the arguments at these paths.
	 * @throws IllegalArgumentException naming a blank path or segment, or if there is none
	 */
	public static KeyArguments only(Collection<String> paths) {
		return new KeyArguments(checked(paths, "keyArguments"), true);
	}

	/**
	 * Every argument but those at these paths.
	 * @throws IllegalArgumentException naming a blank path or segment, or if there is none
	 */
	public static KeyArguments excluding(Collection<String> paths) {
		return new KeyArguments(checked(paths, "keyExcludes"), false);
	}

	/** Whether every argument is in the key. */
	public boolean isAll() {
		return this.paths.isEmpty();
	}

	/** Whether the paths are the ones kept ({@code true}) or the ones left out. */
	public boolean isOnly() {
		return this.only;
	}

	/** The paths, as given. */
	public Set<String> paths() {
		return this.paths;
	}

	/** The arguments the key is derived from: a copy of those selected, or the arguments themselves for all. */
	JsonNode select(JsonNode arguments) {
		if (isAll() || !arguments.isObject()) {
			return arguments;
		}
		JsonNode selected = this.only ? kept(arguments, this.tree) : leftOut(arguments, this.tree);
		return (selected != null) ? selected : JsonNodeFactory.instance.objectNode();
	}

	/**
	 * The members on the paths; {@code null} for nothing (an object none of whose members is on a path, a
	 * {@code null}), which its parent leaves out, as absent and {@code null} are one intent. A value that is not
	 * an object or array before a path's end is kept whole: two calls that differ there differ in the key.
	 */
	private static JsonNode kept(JsonNode node, PathTree tree) {
		if (node == null || node.isNull()) {
			return null;
		}
		if (tree.isEnd() || !node.isContainer()) {
			return node;
		}
		if (node.isArray()) {
			ArrayNode elements = JsonNodeFactory.instance.arrayNode();
			node.forEach((element) -> {
				JsonNode kept = kept(element, tree);
				elements.add((kept != null) ? kept : JsonNodeFactory.instance.nullNode());
			});
			return elements;
		}
		ObjectNode selected = JsonNodeFactory.instance.objectNode();
		for (Map.Entry<String, PathTree> next : tree.children().entrySet()) {
			JsonNode member = kept(node.get(next.getKey()), next.getValue());
			if (member != null) {
				selected.set(next.getKey(), member);
			}
		}
		return selected.isEmpty() ? null : selected;
	}

	/**
	 * The members not on the paths; {@code null} for an object whose every member was left out, which its
	 * parent leaves out, as absent and {@code null} are one intent.
	 */
	private static JsonNode leftOut(JsonNode node, PathTree tree) {
		if (node.isArray()) {
			ArrayNode elements = JsonNodeFactory.instance.arrayNode();
			node.forEach((element) -> {
				JsonNode kept = leftOut(element, tree);
				elements.add((kept != null) ? kept : JsonNodeFactory.instance.nullNode());
			});
			return elements;
		}
		if (!node.isObject() || node.isEmpty()) {
			return node;
		}
		ObjectNode selected = JsonNodeFactory.instance.objectNode();
		for (Map.Entry<String, JsonNode> member : node.properties()) {
			PathTree next = tree.children().get(member.getKey());
			if (next == null) {
				selected.set(member.getKey(), member.getValue());
			}
			else if (!next.isEnd()) {
				JsonNode kept = leftOut(member.getValue(), next);
				if (kept != null) {
					selected.set(member.getKey(), kept);
				}
			}
		}
		return selected.isEmpty() ? null : selected;
	}

	/**
	 * The details in which a later call's arguments differ from an earlier call's with the same key, as keys
	 * compare values (canonical form: {@code 200.0} is {@code 200}, surrounding whitespace and {@code null}
	 * members do not count): the paths of the members whose values differ, or that one call has and the other
	 * not, in name order; empty when they are the same.
	 */
	public List<String> differentDetails(String earlierArgumentsJson, String laterArgumentsJson) {
		List<String> paths = new ArrayList<>();
		differences("", canonical(earlierArgumentsJson), canonical(laterArgumentsJson), paths);
		return List.copyOf(paths);
	}

	private static JsonNode canonical(String argumentsJson) {
		Canonicaliser canonicaliser = new Canonicaliser("arguments");
		String envelope = canonicaliser.envelope(ArgumentsMapper.readJson(argumentsJson, canonicaliser), "run");
		return ArgumentsMapper.readJson(envelope, canonicaliser).get("arguments");
	}

	private static void differences(String path, JsonNode earlier, JsonNode later, List<String> paths) {
		if (java.util.Objects.equals(earlier, later)) {
			return;
		}
		if (earlier == null || later == null || !earlier.isObject() || !later.isObject()) {
			paths.add(path.isEmpty() ? "(the arguments)" : path);
			return;
		}
		Set<String> names = new java.util.TreeSet<>(earlier.propertyNames());
		names.addAll(later.propertyNames());
		for (String name : names) {
			differences(path.isEmpty() ? name : path + "." + name, earlier.get(name), later.get(name), paths);
		}
	}

	private static Set<String> checked(Collection<String> paths, String what) {
		Objects.requireNonNull(paths, what);
		if (paths.isEmpty()) {
			throw new IllegalArgumentException(what + " must name at least one argument");
		}
		Set<String> checked = new LinkedHashSet<>();
		for (String path : paths) {
			if (path == null || path.isBlank()) {
				throw new IllegalArgumentException(what + " must not name a blank argument");
			}
			for (String segment : segments(path)) {
				if (segment.isBlank()) {
					throw new IllegalArgumentException(what + " names '" + path + "', which has an empty segment: write"
							+ " a member and the members inside it separated by single dots (ticket.description)");
				}
			}
			checked.add(path);
		}
		return Set.copyOf(checked);
	}

	/** The member names of a path, outermost first. */
	public static List<String> segments(String path) {
		List<String> segments = new ArrayList<>();
		int start = 0;
		for (int dot = path.indexOf('.'); dot >= 0; dot = path.indexOf('.', start)) {
			segments.add(path.substring(start, dot));
			start = dot + 1;
		}
		segments.add(path.substring(start));
		return segments;
	}

	@Override
	public boolean equals(Object other) {
		return other instanceof KeyArguments that && this.only == that.only && this.paths.equals(that.paths);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.paths, this.only);
	}

	@Override
	public String toString() {
		return isAll() ? "all arguments" : (this.only ? "only " : "all but ") + this.paths;
	}

	/** The paths as a tree of member names; a node where a path ends is an end. */
	private record PathTree(Map<String, PathTree> children, boolean isEnd) {

		static PathTree of(Set<String> paths) {
			Map<String, Object> root = new java.util.LinkedHashMap<>();
			for (String path : paths) {
				Map<String, Object> level = root;
				List<String> segments = segments(path);
				for (int i = 0; i < segments.size(); i++) {
					boolean last = i == segments.size() - 1;
					@SuppressWarnings("unchecked")
					Map<String, Object> next = (Map<String, Object>) level.computeIfAbsent(segments.get(i),
							(name) -> new java.util.LinkedHashMap<String, Object>());
					if (last) {
						// A path's end keeps the member whole, whatever longer paths go inside it.
						next.put(END, Boolean.TRUE);
					}
					level = next;
				}
			}
			return build(root, false);
		}

		private static final String END = "\u0000end";

		@SuppressWarnings("unchecked")
		private static PathTree build(Map<String, Object> level, boolean isEnd) {
			Map<String, PathTree> children = new java.util.LinkedHashMap<>();
			level.forEach((name, next) -> {
				if (!END.equals(name)) {
					Map<String, Object> nested = (Map<String, Object>) next;
					children.put(name, build(nested, nested.containsKey(END)));
				}
			});
			return new PathTree(Map.copyOf(children), isEnd);
		}

	}

}
