package io.idempotency.autoconfigure.web;

import io.idempotency.run.RunSource;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * In a servlet web application, the {@code Idempotency-Key} header of the request being served
 * ({@code idempotency.http.run-header}) is the run of the agent calls it makes.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = { "org.springframework.web.context.request.ServletRequestAttributes",
		"jakarta.servlet.http.HttpServletRequest" })
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
@ConditionalOnExpression("!'${idempotency.http.run-header:Idempotency-Key}'.isBlank()")
public class IdempotencyWebAutoConfiguration {

	@Bean
	RunSource idempotencyRequestHeaderRunSource(Environment environment) {
		return new RequestHeaderRunSource(environment.getProperty("idempotency.http.run-header", "Idempotency-Key"));
	}

}
