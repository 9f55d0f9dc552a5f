package io.idempotency.autoconfigure.http;

import io.idempotency.autoconfigure.IdempotentToolsAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Sends the idempotency key of the executing tool as an {@code Idempotency-Key} header on requests made
 * with Spring's {@code RestClient} and {@code RestTemplate} builders. Off with
 * {@code idempotency.http.propagate-key=false}.
 */
@AutoConfiguration(after = IdempotentToolsAutoConfiguration.class,
		beforeName = { "org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration",
				"org.springframework.boot.restclient.autoconfigure.RestTemplateAutoConfiguration" })
@ConditionalOnClass(RestClientCustomizer.class)
@ConditionalOnBooleanProperty(name = { "idempotency.enabled", "idempotency.http.propagate-key" }, matchIfMissing = true)
public class IdempotencyHttpClientAutoConfiguration {

	@Bean
	RestClientCustomizer idempotencyKeyRestClientCustomizer() {
		IdempotencyKeyRequestInterceptor interceptor = new IdempotencyKeyRequestInterceptor();
		return (builder) -> builder.requestInterceptor(interceptor);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.web.client.RestTemplate")
	static class RestTemplates {

		@Bean
		RestTemplateCustomizer idempotencyKeyRestTemplateCustomizer() {
			IdempotencyKeyRequestInterceptor interceptor = new IdempotencyKeyRequestInterceptor();
			return (restTemplate) -> restTemplate.getInterceptors().add(interceptor);
		}

	}

}
