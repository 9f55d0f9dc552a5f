package io.idempotency.key;

import java.util.List;

import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamContext;

/**
 * Where a value sits inside the arguments, rendered only when an error names it: {@code quantity},
 * {@code items[2].price}, {@code tags["first name"]}.
 */
final class ArgumentPath {

	static final ArgumentPath ROOT = new ArgumentPath(null, null, -1);

	private final ArgumentPath parent;

	private final String name;

	private final int index;

	private final int depth;

	private ArgumentPath(ArgumentPath parent, String name, int index) {
		this.parent = parent;
		this.name = name;
		this.index = index;
		this.depth = (parent != null) ? parent.depth + 1 : 0;
	}

	/** How many members and elements deep the path goes: the arguments object itself is depth 0. */
	int depth() {
		return this.depth;
	}

	ArgumentPath member(String name) {
		return new ArgumentPath(this, name, -1);
	}

	ArgumentPath element(int index) {
		return new ArgumentPath(this, null, index);
	}

	/** The path of where a parser stands. */
	static ArgumentPath of(TokenStreamContext context) {
		if (context == null || context.inRoot()) {
			return ROOT;
		}
		ArgumentPath parent = of(context.getParent());
		if (context.inArray()) {
			return parent.element(Math.max(context.getCurrentIndex(), 0));
		}
		return (context.currentName() != null) ? parent.member(context.currentName()) : parent;
	}

	static ArgumentPath of(List<JacksonException.Reference> references) {
		ArgumentPath path = ROOT;
		for (JacksonException.Reference reference : references) {
			if (reference.getPropertyName() != null) {
				path = path.member(reference.getPropertyName());
			}
			else if (reference.getIndex() >= 0) {
				path = path.element(reference.getIndex());
			}
		}
		return path;
	}

	@Override
	public String toString() {
		StringBuilder out = new StringBuilder();
		render(out);
		return out.toString();
	}

	private void render(StringBuilder out) {
		if (this.parent == null) {
			return;
		}
		this.parent.render(out);
		if (this.name == null) {
			out.append('[').append(this.index).append(']');
		}
		else if (isPlainName(this.name)) {
			if (out.length() > 0) {
				out.append('.');
			}
			out.append(this.name);
		}
		else {
			out.append("[\"").append(this.name.replace("\\", "\\\\").replace("\"", "\\\"")).append("\"]");
		}
	}

	private static boolean isPlainName(String name) {
		if (name.isEmpty() || !Character.isJavaIdentifierStart(name.charAt(0))) {
			return false;
		}
		for (int i = 1; i < name.length(); i++) {
			if (!Character.isJavaIdentifierPart(name.charAt(i))) {
				return false;
			}
		}
		return true;
	}

}
