package io.idempotency.key;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.model.ToolContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** How a tool method's invocation becomes its arguments. */
class MethodArgumentsTest {

	static class Tools {

		public String openTicket(String accountName, String issue, ToolContext context) {
			return accountName + issue + context;
		}

	}

	@Test
	void aToolContextIsContextNotAnArgument() throws Exception {
		Method method = Tools.class.getMethod("openTicket", String.class, String.class, ToolContext.class);
		Object[] args = { "Henderson Industrial", "seal failure", new ToolContext(Map.of("runId", "r1")) };

		assertThat(IdempotencyKeys.argumentsOf(method, args)).containsOnlyKeys("accountName", "issue");
		assertThat(IdempotencyKeys.derive("open_ticket", method, args, "r1")).isEqualTo(IdempotencyKeys
			.derive("open_ticket", "{\"accountName\":\"Henderson Industrial\",\"issue\":\"seal failure\"}", "r1"));
	}

	@Test
	void theToolContextDoesNotChangeTheKey() throws Exception {
		Method method = Tools.class.getMethod("openTicket", String.class, String.class, ToolContext.class);
		IdempotencyKey first = IdempotencyKeys.derive("open_ticket", method,
				new Object[] { "A", "B", new ToolContext(Map.of("runId", "r1", "requestedAt", "09:00")) }, "r1");
		IdempotencyKey second = IdempotencyKeys.derive("open_ticket", method,
				new Object[] { "A", "B", new ToolContext(Map.of("runId", "r1", "requestedAt", "09:01")) }, "r1");
		assertThat(first).isEqualTo(second);
	}

	@Test
	void aMethodCompiledWithoutParameterNamesIsRefusedWithAdvice(@TempDir Path dir) throws Exception {
		Method method = compileWithoutParameterNames(dir);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> IdempotencyKeys.derive("draft_quote", method, new Object[] { "SKU-4411", 200 }, "r1"))
			.withMessageContaining("draftQuote")
			.withMessageContaining("compile with -parameters");
	}

	private static Method compileWithoutParameterNames(Path dir) throws IOException, ReflectiveOperationException {
		Path source = dir.resolve("QuoteTools.java");
		Files.writeString(source, """
				public class QuoteTools {
					public String draftQuote(String sku, int quantity) {
						return sku + quantity;
					}
				}
				""");
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		int status = compiler.run(null, null, null, "-d", dir.toString(), source.toString());
		assertThat(status).isZero();
		try (URLClassLoader loader = new URLClassLoader(new java.net.URL[] { dir.toUri().toURL() })) {
			Class<?> tools = loader.loadClass("QuoteTools");
			Method method = tools.getMethod("draftQuote", String.class, int.class);
			assertThat(List.of(method.getParameters())).noneMatch(java.lang.reflect.Parameter::isNamePresent);
			return method;
		}
	}

}
