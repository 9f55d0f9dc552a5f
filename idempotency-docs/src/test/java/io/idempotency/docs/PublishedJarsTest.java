package io.idempotency.docs;

import java.io.File;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarFile;

import io.idempotency.IdempotentTool;
import io.idempotency.ai.IdempotentToolCallback;
import io.idempotency.autoconfigure.IdempotencyProperties;
import io.idempotency.langchain4j.IdempotentLangChain4jTools;
import io.idempotency.test.InMemoryLedger;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each published jar names its module for the module path ({@code Automatic-Module-Name}) and carries its
 * version ({@code Implementation-Version}), as the build packages it for this module's tests.
 */
class PublishedJarsTest {

	@Test
	void eachPublishedJarNamesItsModuleAndItsVersion() throws Exception {
		Map<Class<?>, String> modules = Map.of(IdempotentTool.class, "io.idempotency.core",
				IdempotentToolCallback.class, "io.idempotency.spring.ai", IdempotentLangChain4jTools.class,
				"io.idempotency.langchain4j", IdempotencyProperties.class, "io.idempotency.spring.boot.autoconfigure",
				InMemoryLedger.class, "io.idempotency.test");
		for (Map.Entry<Class<?>, String> module : modules.entrySet()) {
			File jar = new File(module.getKey().getProtectionDomain().getCodeSource().getLocation().toURI());
			assertThat(jar).as("%s is read from its packaged jar", module.getValue()).isFile();
			try (JarFile file = new JarFile(jar)) {
				Attributes manifest = file.getManifest().getMainAttributes();
				assertThat(manifest.getValue("Automatic-Module-Name")).isEqualTo(module.getValue());
				assertThat(manifest.getValue("Implementation-Version")).as(module.getValue())
					.isEqualTo(module.getKey().getPackage().getImplementationVersion())
					.matches("\\d+\\.\\d+\\.\\d+.*");
			}
		}
	}

}
