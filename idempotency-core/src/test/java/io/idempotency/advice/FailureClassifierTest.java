package io.idempotency.advice;

import java.lang.reflect.Method;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

import io.idempotency.ledger.LedgerStatus;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClientException;
import org.springframework.web.client.UnknownContentTypeException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Which failures may have taken effect ({@code unknown}) and which definitely did not ({@code failed}). */
class FailureClassifierTest {

	private final FailureClassifier defaults = new FailureClassifier(List.of());

	private final ToolDescriptor tool = tool();

	@Test
	void aGatewaysAnswerMayHaveTakenEffect() {
		for (HttpStatus status : List.of(HttpStatus.BAD_GATEWAY, HttpStatus.SERVICE_UNAVAILABLE,
				HttpStatus.GATEWAY_TIMEOUT)) {
			HttpServerErrorException answer = HttpServerErrorException.create(status, status.getReasonPhrase(),
					HttpHeaders.EMPTY, new byte[0], StandardCharsets.UTF_8);
			assertThat(this.defaults.classify(answer, this.tool)).as(status.toString()).isEqualTo(LedgerStatus.UNKNOWN);
			assertThat(this.defaults.classify(new IllegalStateException("order failed", answer), this.tool))
				.as("caused by " + status)
				.isEqualTo(LedgerStatus.UNKNOWN);
		}
	}

	@Test
	void aGatewayStatusIsReadFromAGenericServerErrorToo() {
		HttpServerErrorException generic = new HttpServerErrorException(HttpStatusCode.valueOf(504));
		assertThat(generic.getClass()).isEqualTo(HttpServerErrorException.class);

		assertThat(this.defaults.classify(generic, this.tool)).isEqualTo(LedgerStatus.UNKNOWN);
	}

	@Test
	void otherServerErrorsAreDefiniteFailures() {
		assertThat(this.defaults.classify(new HttpServerErrorException(HttpStatus.INTERNAL_SERVER_ERROR), this.tool))
			.isEqualTo(LedgerStatus.FAILED);
		assertThat(this.defaults.classify(new HttpServerErrorException(HttpStatusCode.valueOf(599)), this.tool))
			.isEqualTo(LedgerStatus.FAILED);
		assertThat(this.defaults.classify(new RestClientException("bad body"), this.tool)).isEqualTo(LedgerStatus.FAILED);
	}

	@Test
	void anInterruptedOrCancelledWaitMayHaveTakenEffect() {
		assertThat(this.defaults.classify(new RuntimeException("interrupted", new InterruptedException()), this.tool))
			.isEqualTo(LedgerStatus.UNKNOWN);
		assertThat(this.defaults.classify(new java.util.concurrent.CancellationException("cancelled"), this.tool))
			.isEqualTo(LedgerStatus.UNKNOWN);
	}

	@Test
	void timeoutsAndLostConnectionsMayHaveTakenEffect() {
		assertThat(this.defaults.classify(new ResourceAccessException("I/O error", new SocketTimeoutException()),
				this.tool))
			.isEqualTo(LedgerStatus.UNKNOWN);
	}

	@Test
	void configuredNamesResolveWithEitherSpellingOfANestedClass() {
		List<Class<? extends Throwable>> types = FailureClassifier.resolve(
				List.of("org.springframework.web.client.HttpServerErrorException.InternalServerError",
						"org.springframework.web.client.UnknownContentTypeException",
						"org.springframework.web.client.HttpClientErrorException$Conflict"),
				getClass().getClassLoader());
		assertThat(types).extracting(Class::getSimpleName)
			.containsExactly("InternalServerError", "UnknownContentTypeException", "Conflict");

		FailureClassifier configured = new FailureClassifier(types);
		assertThat(configured.classify(new HttpServerErrorException(HttpStatus.INTERNAL_SERVER_ERROR), this.tool))
			.as("a generic 500 is not an InternalServerError")
			.isEqualTo(LedgerStatus.FAILED);
		assertThat(configured.classify(HttpServerErrorException.create(HttpStatus.INTERNAL_SERVER_ERROR, "x",
				HttpHeaders.EMPTY, new byte[0], null), this.tool))
			.isEqualTo(LedgerStatus.UNKNOWN);
		assertThat(configured.classify(new IllegalStateException(new UnknownContentTypeException(String.class,
				null, HttpStatus.OK, "OK", HttpHeaders.EMPTY, new byte[0])), this.tool))
			.isEqualTo(LedgerStatus.UNKNOWN);
	}

	@Test
	void aNameThatNoFailureCanMatchIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> FailureClassifier.resolve(List.of("com.example.GatewayTimeout", "java.lang.String",
					"java.io.IOException", " "), getClass().getClassLoader()))
			.withMessageContaining("idempotency.unknown-exceptions")
			.withMessageContaining("'com.example.GatewayTimeout' is not a class on the class path")
			.withMessageContaining("'java.lang.String' is not a Throwable")
			.withMessageContaining("a blank name")
			.withMessageNotContaining("IOException");
	}

	@Test
	void theAdvisorRefusesANameItCouldNeverMatch() {
		IdempotentToolAdvisor advisor = new IdempotentToolAdvisor(() -> null, () -> null, List::of, () -> null);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> advisor.addUnknownExceptions(List.of("org.springframework.web.client.HttpServerErrorException.GatewayTimeou")))
			.withMessageContaining("'org.springframework.web.client.HttpServerErrorException.GatewayTimeou' is not a class");
	}

	private static ToolDescriptor tool() {
		Method method;
		try {
			method = Tools.class.getMethod("placeOrder", String.class);
		}
		catch (NoSuchMethodException ex) {
			throw new IllegalStateException(ex);
		}
		return new ToolDescriptor(method, "place_order", "placeOrder", false, null, false, null, false, List.of(),
				List.of(), Set.of(), java.time.Duration.ZERO, io.idempotency.key.KeyArguments.all(),
				io.idempotency.DifferentDetails.REPLAY, ApprovalNeed.NONE);
	}

	public static class Tools {

		public String placeOrder(String sku) {
			return sku;
		}

	}

}
