package io.idempotency.key;

import java.lang.annotation.Annotation;
import java.lang.reflect.Parameter;
import java.util.Set;

import org.springframework.util.ClassUtils;

/**
 * The parameters that frameworks inject into a tool method with the request's context rather than the
 * model's intent: never arguments of a key, never stored, never given to a reconcile method. A client makes
 * most of them anew for every request, re-sends included (an MCP progress token, request id, {@code _meta}),
 * so a key over them would make a re-send a new call. Named, because the frameworks that define them are
 * optional.
 */
final class ContextParameters {

	/** Types injected as context: a parameter of one of these types, or of a subtype, is context. */
	static final Set<String> TYPES = Set.of(
			// Spring AI: the per-request map given with ChatClient...toolContext(Map).
			"org.springframework.ai.chat.model.ToolContext",
			// Spring AI's MCP annotations, for @McpTool methods.
			"org.springframework.ai.mcp.annotation.McpMeta",
			"org.springframework.ai.mcp.annotation.context.McpSyncRequestContext",
			"org.springframework.ai.mcp.annotation.context.McpAsyncRequestContext",
			// The MCP Java SDK's request, exchange and transport context.
			"io.modelcontextprotocol.spec.McpSchema$CallToolRequest",
			"io.modelcontextprotocol.server.McpSyncServerExchange",
			"io.modelcontextprotocol.server.McpAsyncServerExchange",
			"io.modelcontextprotocol.common.McpTransportContext",
			// LangChain4j: an AI service invocation's parameters and context.
			"dev.langchain4j.invocation.InvocationParameters", "dev.langchain4j.invocation.InvocationContext");

	/** Annotations that mark a parameter as injected context, whatever its type. */
	static final Set<String> ANNOTATIONS = Set.of("org.springframework.ai.mcp.annotation.McpProgressToken",
			"dev.langchain4j.agent.tool.ToolMemoryId");

	private ContextParameters() {
	}

	static boolean isContext(Parameter parameter) {
		for (Annotation annotation : parameter.getAnnotations()) {
			if (ANNOTATIONS.contains(annotation.annotationType().getName())) {
				return true;
			}
		}
		return isContextType(parameter.getType());
	}

	/** Per class, read once: the run resolver asks of every argument of every call. */
	private static final ClassValue<Boolean> CONTEXT_TYPES = new ClassValue<>() {

		@Override
		protected Boolean computeValue(Class<?> type) {
			return isContextTypeUncached(type);
		}

	};

	static boolean isContextType(Class<?> type) {
		return CONTEXT_TYPES.get(type);
	}

	private static boolean isContextTypeUncached(Class<?> type) {
		for (Class<?> candidate = type; candidate != null && candidate != Object.class; candidate = candidate.getSuperclass()) {
			if (TYPES.contains(candidate.getName())) {
				return true;
			}
		}
		return ClassUtils.getAllInterfacesForClassAsSet(type).stream().anyMatch((i) -> TYPES.contains(i.getName()));
	}

}
