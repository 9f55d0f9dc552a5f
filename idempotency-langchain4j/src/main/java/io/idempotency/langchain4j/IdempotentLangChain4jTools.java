package io.idempotency.langchain4j;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.agent.tool.ToolSpecifications;
import dev.langchain4j.service.tool.AiServiceTool;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Idempotent tools for LangChain4j's AI services: the {@code @Tool} methods of Spring beans (whose
 * {@code @IdempotentTool} advice deduplicates them), with executors that run each call in the AI service
 * invocation's run and tell the model how it was answered.
 *
 * <pre>{@code
 * Assistant assistant = AiServices.builder(Assistant.class)
 *     .chatModel(chatModel)
 *     .tools(IdempotentLangChain4jTools.from(ticketTools))   // ticketTools: the Spring bean
 *     .build();
 * }</pre>
 *
 * The run of a call is the invocation parameters' {@code runId} (and {@code userId}) where the AI service
 * method takes {@code InvocationParameters}, else a run bound with {@code RunContext} around the AI service
 * call, else the AI service invocation: the same call repeated within one invocation has one effect, and a
 * new invocation is a new run.
 */
public final class IdempotentLangChain4jTools {

	private IdempotentLangChain4jTools() {
	}

	/**
	 * The {@code @Tool} methods of these objects, with decorated executors. A Spring bean's methods are found
	 * on its class and invoked on the bean itself, so that its proxy's advice applies (LangChain4j's own scan
	 * sees no {@code @Tool} method on a class-based proxy).
	 * @param toolObjects objects with {@code @Tool} methods: Spring beans, so that their idempotency advice
	 * applies
	 * @throws IllegalArgumentException naming an object without {@code @Tool} methods
	 */
	public static List<AiServiceTool> from(Object... toolObjects) {
		List<AiServiceTool> tools = new ArrayList<>();
		for (Object toolObject : Objects.requireNonNull(toolObjects, "toolObjects")) {
			Objects.requireNonNull(toolObject, "a tool object");
			Class<?> type = AopUtils.getTargetClass(toolObject);
			if (AopUtils.isJdkDynamicProxy(toolObject)) {
				throw new IllegalArgumentException(ClassUtils.getShortName(type) + " is proxied by interface (a JDK"
						+ " proxy), through which its @Tool methods cannot be called: proxy it by class"
						+ " (spring.aop.proxy-target-class=true, Spring Boot's default)");
			}
			// A method a class-based proxy cannot override runs on the bean itself, as the proxy would run it.
			Object target = AopProxyUtils.getSingletonTarget(toolObject);
			int found = 0;
			for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type, ReflectionUtils.USER_DECLARED_METHODS)) {
				Tool tool = method.getAnnotation(Tool.class);
				if (tool == null) {
					continue;
				}
				ToolSpecification specification = ToolSpecifications.toolSpecificationFrom(method);
				// As LangChain4j's own executors do: the tool's exceptions go to the AI service's error handler.
				int modifiers = method.getModifiers();
				boolean overridable = !Modifier.isPrivate(modifiers) && !Modifier.isFinal(modifiers)
						&& !Modifier.isStatic(modifiers);
				ToolExecutor executor = DefaultToolExecutor.builder()
					.object((overridable || target == null) ? toolObject : target)
					.originalMethod(method)
					.methodToInvoke(method)
					.wrapToolArgumentsExceptions(true)
					.propagateToolExecutionExceptions(true)
					.build();
				tools.add(AiServiceTool.builder()
					.toolSpecification(specification)
					.toolExecutor(decorate(executor, specification.name()))
					.returnBehavior(tool.returnBehavior())
					.build());
				found++;
			}
			if (found == 0) {
				throw new IllegalArgumentException(ClassUtils.getShortName(type) + " has no method annotated with"
						+ " LangChain4j's @Tool (dev.langchain4j.agent.tool.Tool)");
			}
		}
		return List.copyOf(tools);
	}

	/**
	 * A tool provider of the {@code @Tool} methods of these objects, with decorated executors ({@link #from}),
	 * and of the tools of another provider, as that provider gives them: for an AI service that takes its
	 * tools from one provider, such as one declared with LangChain4j's {@code @AiService}.
	 * @param others the provider the AI service had, or {@code null}
	 * @param toolObjects objects with {@code @Tool} methods: Spring beans, so that their idempotency advice
	 * applies
	 * @throws IllegalArgumentException naming an object without {@code @Tool} methods
	 */
	public static ToolProvider toolProvider(ToolProvider others, Object... toolObjects) {
		List<AiServiceTool> tools = from(toolObjects);
		return new ToolProvider() {

			@Override
			public ToolProviderResult provideTools(ToolProviderRequest request) {
				ToolProviderResult.Builder result = ToolProviderResult.builder().addAll(tools);
				ToolProviderResult theirs = (others != null) ? others.provideTools(request) : null;
				if (theirs != null) {
					result.addAll(theirs.aiServiceTools());
				}
				return result.build();
			}

			@Override
			public boolean isDynamic() {
				return others != null && others.isDynamic();
			}

		};
	}

	/** The tool, with its executor decorated; one already decorated is returned as it is. */
	public static AiServiceTool decorate(AiServiceTool tool) {
		Objects.requireNonNull(tool, "tool");
		if (tool.toolExecutor() instanceof IdempotentToolExecutor) {
			return tool;
		}
		return tool.toBuilder().toolExecutor(decorate(tool.toolExecutor(), tool.name())).build();
	}

	/**
	 * An executor of the tool of this name, decorated: for a tool given to an AI service as a
	 * specification and executor ({@code AiServices.tools(Map)}, a {@code ToolProvider}).
	 */
	public static ToolExecutor decorate(ToolExecutor executor, String toolName) {
		return (executor instanceof IdempotentToolExecutor) ? executor : new IdempotentToolExecutor(executor, toolName);
	}

}
