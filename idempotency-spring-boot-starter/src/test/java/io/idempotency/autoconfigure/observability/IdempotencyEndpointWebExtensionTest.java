package io.idempotency.autoconfigure.observability;

import io.idempotency.autoconfigure.IdempotencyLedgerAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint's web extension (503 where the ledger does not answer) is the starter's, unless the application
 * extends the endpoint over the web itself: an endpoint takes one extension, and two would stop the start.
 */
class IdempotencyEndpointWebExtensionTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				IdempotencyLedgerAutoConfiguration.class, IdempotencyHealthAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:web-extension;DB_CLOSE_DELAY=-1",
				"idempotency.jdbc.initialize-schema=always", "management.endpoints.web.exposure.include=idempotency");

	@EndpointWebExtension(endpoint = IdempotencyEndpoint.class)
	static class OwnExtension {

		private final IdempotencyEndpoint endpoint;

		OwnExtension(IdempotencyEndpoint endpoint) {
			this.endpoint = endpoint;
		}

		@ReadOperation
		WebEndpointResponse<Object> report() {
			return new WebEndpointResponse<>(this.endpoint.report());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WithOwnExtension {

		@Bean
		OwnExtension ownExtension(IdempotencyEndpoint endpoint) {
			return new OwnExtension(endpoint);
		}

	}

	@Test
	void theStarterExtendsTheEndpointOverTheWeb() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(IdempotencyEndpoint.class)
			.hasSingleBean(IdempotencyEndpointWebExtension.class));
	}

	@Test
	void anApplicationThatExtendsTheEndpointItselfKeepsItsOwnExtensionAlone() {
		this.runner.withUserConfiguration(WithOwnExtension.class)
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(OwnExtension.class)
				.doesNotHaveBean(IdempotencyEndpointWebExtension.class));
	}

}
