package io.idempotency.autoconfigure.web;

import java.security.Principal;

import io.idempotency.run.Run;
import io.idempotency.run.RunSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import static org.assertj.core.api.Assertions.assertThat;

/** In a servlet application, the Idempotency-Key header of the request being served is its run. */
class IdempotencyWebAutoConfigurationTest {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyWebAutoConfiguration.class));

	@AfterEach
	void forgetRequest() {
		RequestContextHolder.resetRequestAttributes();
	}

	@Test
	void theHeaderOfTheRequestBeingServedIsTheRunForItsUser() {
		this.runner.run((context) -> {
			RunSource source = context.getBean(RunSource.class);
			assertThat(source.currentRun()).as("outside a request").isEmpty();

			MockHttpServletRequest request = new MockHttpServletRequest("POST", "/agent");
			request.addHeader("Idempotency-Key", " req-8f14e45f ");
			Principal user = () -> "rep-7";
			request.setUserPrincipal(user);
			RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(request));

			assertThat(source.currentRun()).contains(new Run("req-8f14e45f", "rep-7"));
		});
	}

	@Test
	void theHeaderIsConfigurableAndCanBeIgnored() {
		this.runner.withPropertyValues("idempotency.http.run-header=X-Request-Id").run((context) -> {
			MockHttpServletRequest request = new MockHttpServletRequest("POST", "/agent");
			request.addHeader("Idempotency-Key", "ignored");
			request.addHeader("X-Request-Id", "r-1");
			RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(request));

			assertThat(context.getBean(RunSource.class).currentRun()).contains(new Run("r-1", null));
		});
		this.runner.withPropertyValues("idempotency.http.run-header=")
			.run((context) -> assertThat(context).doesNotHaveBean(RunSource.class));
	}

	@Test
	void onlyAServletApplicationReadsIt() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(IdempotencyWebAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean(RunSource.class));
	}

}
