package io.idempotency.key;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.introspect.Annotated;
import tools.jackson.databind.introspect.JacksonAnnotationIntrospector;

/**
 * Reads a type's Jackson annotations as a framework does when it binds a model's arguments, not as it
 * writes the type: every member a tool can receive is written for its key and its ledger row, even where
 * the type's own serialisation leaves it out. A property that is read but never written
 * ({@code @JsonProperty(access = WRITE_ONLY)}, names ignored with {@code allowSetters}) is written; no
 * inclusion rule ({@code @JsonInclude(NON_EMPTY)}, ...) drops a value that differs from an absent one. What
 * a framework never binds ({@code @JsonIgnore}, ignored names without {@code allowSetters}) is left out, as
 * before.
 */
final class ArgumentsIntrospector extends JacksonAnnotationIntrospector {

	private static final long serialVersionUID = 1L;

	@Override
	public JsonProperty.Access findPropertyAccess(MapperConfig<?> config, Annotated annotated) {
		JsonProperty.Access access = super.findPropertyAccess(config, annotated);
		return (access == JsonProperty.Access.WRITE_ONLY) ? JsonProperty.Access.READ_WRITE : access;
	}

	@Override
	public JsonIgnoreProperties.Value findPropertyIgnoralByName(MapperConfig<?> config, Annotated annotated) {
		JsonIgnoreProperties.Value ignored = super.findPropertyIgnoralByName(config, annotated);
		return (ignored != null && ignored.getAllowSetters()) ? JsonIgnoreProperties.Value.empty() : ignored;
	}

	@Override
	public JsonInclude.Value findPropertyInclusion(MapperConfig<?> config, Annotated annotated) {
		return JsonInclude.Value.empty();
	}

}
