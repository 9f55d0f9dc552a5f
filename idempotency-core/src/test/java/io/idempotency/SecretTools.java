package io.idempotency;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Map;

import io.idempotency.key.IdempotencyKey;
import tools.jackson.databind.json.JsonMapper;

/** Tools that receive, quote and return secrets: none of them may reach the ledger in clear text. */
public class SecretTools {

	private static final JsonMapper JSON = new JsonMapper();

	public record Credentials(String user, String password) {
	}

	public record Header(String name, String authorization) {
	}

	public record Settings(String account, Credentials credentials, List<Header> headers, Map<String, String> oauth) {
	}

	public record Issued(String account, String token) {
	}

	@IdempotentTool(name = "connect", reconcile = "notFound")
	public String connect(String host, String apiKey) {
		if (host.equals("refused")) {
			throw new IllegalArgumentException("https://" + host + "/v1?api_key=" + apiKey + " refused the call");
		}
		if (host.equals("slow")) {
			throw new UncheckedIOException(new SocketTimeoutException("Read timed out: https://" + host + "/v1?api_key=" + apiKey));
		}
		return "connected to " + host;
	}

	/** Names that are likely credentials, though none is in the list of names: redacted by their endings. */
	@IdempotentTool(name = "deploy", reconcile = "notFound")
	public String deploy(String repository, String githubToken, String stripeApiKey, String dbPassword) {
		if (repository.equals("refused")) {
			throw new IllegalArgumentException("push with " + githubToken + " refused; stripe " + stripeApiKey + ", db "
					+ dbPassword);
		}
		return "deployed " + repository;
	}

	@IdempotentTool(name = "configure", reconcile = "notFound")
	public String configure(Settings settings) {
		return "configured " + settings.account();
	}

	@IdempotentTool(name = "echo_key", reconcile = "notFound")
	public String echoKey(String account, String apiKey) {
		return "connected " + account + " with " + apiKey;
	}

	@IdempotentTool(name = "issue_token", reconcile = "findIssued")
	public Issued issueToken(String account) {
		return new Issued(account, SecretSweepContractTests.ISSUED_TOKEN);
	}

	Reconciliation<Issued> findIssued(IdempotencyKey key, String account) {
		return Reconciliation.found(new Issued(account, SecretSweepContractTests.RECONCILED_TOKEN));
	}

	/** A result that is JSON text, as a tool that hands on another service's answer returns it. */
	@IdempotentTool(name = "issue_token_text", reconcile = "findIssuedText")
	public String issueTokenText(String account) {
		return JSON.writeValueAsString(Map.of("account", account, "accessToken", SecretSweepContractTests.TEXT_TOKEN));
	}

	Reconciliation<String> findIssuedText(IdempotencyKey key, String account) {
		return Reconciliation.found(JSON.writeValueAsString(
				Map.of("account", account, "session", Map.of("token", SecretSweepContractTests.RECONCILED_TEXT_TOKEN))));
	}

	@IdempotentTool(name = "issue_key_envelope", reconcile = "notFound")
	public ToolResult<String> issueKeyEnvelope(String account) {
		return ToolResult.of(JSON.writeValueAsString(List.of(Map.of("apiKey", SecretSweepContractTests.ENVELOPE_KEY))));
	}

	public record Text(String type, String text) {
	}

	public record Reply(List<Text> content) {
	}

	/** A reply whose text is JSON, one of whose members is JSON text again: the secret two texts deep. */
	@IdempotentTool(name = "reply", reconcile = "noReply")
	public Reply reply(String account) {
		String body = JSON.writeValueAsString(Map.of("password", SecretSweepContractTests.NESTED_PASSWORD));
		return new Reply(List.of(new Text("text", JSON.writeValueAsString(Map.of("account", account, "body", body)))));
	}

	Reconciliation<Reply> noReply(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

	/** A result that quotes the key inside JSON text: escaped there, and escaped again where it is stored. */
	@IdempotentTool(name = "echo_key_json", reconcile = "notFound")
	public String echoKeyJson(String account, String apiKey) {
		return JSON.writeValueAsString(Map.of("account", account, "usedKey", apiKey));
	}

	/** Fails as an HTTP client does: the message quotes the request's JSON body, the key escaped in it. */
	@IdempotentTool(name = "call_service", reconcile = "notFound")
	public String callService(String service, String apiKey) {
		throw new IllegalStateException("400 Bad Request on POST /v1/" + service + " with body "
				+ JSON.writeValueAsString(Map.of("service", service, "api_key", apiKey)));
	}

	/** Keyed on the account: a repeat that differs in the key it gives is a different detail. */
	@IdempotentTool(name = "connect_account", reconcile = "notFound", keyArguments = "account",
			onDifferentDetails = DifferentDetails.REFUSE)
	public String connectAccount(String account, String apiKey) {
		return "connected " + account + ((apiKey != null) ? " with a key" : " without a key");
	}

	@IdempotentTool(name = "unlock", reconcile = "notFound", sensitive = "pin")
	public String unlock(String door, String pin) {
		throw new IllegalStateException("door " + door + " refused pin " + pin);
	}

	Reconciliation<String> notFound(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

}
