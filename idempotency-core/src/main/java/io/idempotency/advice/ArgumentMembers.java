package io.idempotency.advice;

import java.lang.reflect.Type;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.idempotency.key.IdempotencyKeys;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.SerializationConfig;
import tools.jackson.databind.introspect.AnnotatedMember;
import tools.jackson.databind.introspect.BeanPropertyDefinition;
import tools.jackson.databind.introspect.ClassIntrospector;
import tools.jackson.databind.introspect.JacksonAnnotationIntrospector;

/**
 * The member names that a parameter's values have as stored arguments, at any depth (records' components,
 * beans' properties, inside collections, maps and optionals), as the library's own mapper writes them; and
 * which of them the type's own annotations mark write-only ({@code @JsonProperty(access = WRITE_ONLY)}):
 * read from a request and never written back, the usual mark of a secret. Read once per tool, at start.
 */
final class ArgumentMembers {

	/** How deep types are followed: deeper members are not named. */
	private static final int MAX_DEPTH = 8;

	private static final JacksonAnnotationIntrospector ANNOTATIONS = new JacksonAnnotationIntrospector();

	private ArgumentMembers() {
	}

	/** Every member name of values of this type, at any depth, each with whether it is write-only. */
	static Map<String, Boolean> of(Type type) {
		SerializationConfig config = IdempotencyKeys.argumentsMapper().serializationConfig();
		Map<String, Boolean> members = new LinkedHashMap<>();
		collect(config, config.getTypeFactory().constructType(type), members, new HashSet<>(), 0);
		return members;
	}

	private static void collect(SerializationConfig config, JavaType type, Map<String, Boolean> members,
			Set<Class<?>> seen, int depth) {
		if (type == null || depth > MAX_DEPTH) {
			return;
		}
		if (type.isContainerType() || type.isReferenceType()) {
			if (type.getKeyType() != null) {
				collect(config, type.getKeyType(), members, seen, depth + 1);
			}
			collect(config, type.getContentType(), members, seen, depth + 1);
			return;
		}
		Class<?> raw = type.getRawClass();
		if (raw.isPrimitive() || raw.isEnum() || raw.getName().startsWith("java.") || !seen.add(raw)) {
			return;
		}
		ClassIntrospector introspector = config.classIntrospectorInstance().forOperation(config);
		BeanDescription description = introspector.introspectForSerialization(type,
				introspector.introspectClassAnnotations(type));
		for (BeanPropertyDefinition property : description.findProperties()) {
			members.merge(property.getName(), isWriteOnly(config, property), Boolean::logicalOr);
			collect(config, property.getPrimaryType(), members, seen, depth + 1);
		}
	}

	/**
	 * The first name of these, walked one at a time into a value of this type (collections, arrays and
	 * optionals walked through to their elements), that is no member of the type where it stands; empty when
	 * each is, or where the type cannot tell (a map's keys, {@code Object}, a JSON tree).
	 */
	static java.util.Optional<String> missingMember(Type type, List<String> names) {
		SerializationConfig config = IdempotencyKeys.argumentsMapper().serializationConfig();
		JavaType current = config.getTypeFactory().constructType(type);
		for (String name : names) {
			while (current != null && (current.isCollectionLikeType() || current.isArrayType()
					|| current.isReferenceType())) {
				current = current.getContentType();
			}
			if (current == null || current.isMapLikeType() || current.getRawClass() == Object.class
					|| current.getRawClass().getName().startsWith("tools.jackson.databind")) {
				return java.util.Optional.empty();
			}
			ClassIntrospector introspector = config.classIntrospectorInstance().forOperation(config);
			BeanDescription description = introspector.introspectForSerialization(current,
					introspector.introspectClassAnnotations(current));
			JavaType next = null;
			for (BeanPropertyDefinition property : description.findProperties()) {
				if (property.getName().equals(name)) {
					next = property.getPrimaryType();
				}
			}
			if (next == null) {
				return java.util.Optional.of(name);
			}
			current = next;
		}
		return java.util.Optional.empty();
	}

	private static boolean isWriteOnly(SerializationConfig config, BeanPropertyDefinition property) {
		for (AnnotatedMember member : new AnnotatedMember[] { property.getField(), property.getGetter(),
				property.getSetter(), property.getConstructorParameter() }) {
			if (member != null && ANNOTATIONS.findPropertyAccess(config, member) == JsonProperty.Access.WRITE_ONLY) {
				return true;
			}
		}
		return false;
	}

}
