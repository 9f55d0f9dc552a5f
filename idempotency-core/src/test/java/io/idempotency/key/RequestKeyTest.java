package io.idempotency.key;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The Idempotency-Key of one outgoing request: derived from the call's key and the request, as documented. */
class RequestKeyTest {

	private static final IdempotencyKey KEY = IdempotencyKeys.derive("send_quote", "{\"quoteId\":7}", "r1");

	private static final URI URI_QUOTES = URI.create("https://api.example.com/v1/quotes/7/send");

	private static final byte[] BODY = "{\"to\":\"buyer@example.com\"}".getBytes(StandardCharsets.UTF_8);

	@Test
	void itIsTheDocumentedHash() throws Exception {
		MessageDigest sha = MessageDigest.getInstance("SHA-256");
		String bodyHash = HexFormat.of().formatHex(sha.digest(BODY));
		String text = "idempotency-request-v1\n" + KEY.value() + "\nPOST\n" + URI_QUOTES + "\n" + bodyHash;
		String expected = HexFormat.of().formatHex(sha.digest(text.getBytes(StandardCharsets.UTF_8)));

		assertThat(KEY.forRequest("POST", URI_QUOTES, BODY)).isEqualTo(expected);
	}

	@Test
	void theSameRequestGetsTheSameValueAndAnyDifferenceAnother() {
		String header = KEY.forRequest("POST", URI_QUOTES, BODY);

		assertThat(KEY.forRequest("post", URI_QUOTES, BODY.clone())).isEqualTo(header);
		assertThat(KEY.forRequest("PUT", URI_QUOTES, BODY)).isNotEqualTo(header);
		assertThat(KEY.forRequest("POST", URI.create("https://api.example.com/v1/quotes/8/send"), BODY))
			.isNotEqualTo(header);
		assertThat(KEY.forRequest("POST", URI_QUOTES, "{}".getBytes(StandardCharsets.UTF_8))).isNotEqualTo(header);
		assertThat(IdempotencyKeys.derive("send_quote", "{\"quoteId\":7}", "r2").forRequest("POST", URI_QUOTES, BODY))
			.isNotEqualTo(header);
		assertThat(KEY.forRequest("POST", URI_QUOTES, null)).isEqualTo(KEY.forRequest("POST", URI_QUOTES, new byte[0]));
	}

	@Test
	void aBlankMethodIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> KEY.forRequest(" ", URI_QUOTES, BODY))
			.withMessageContaining("method");
	}

}
