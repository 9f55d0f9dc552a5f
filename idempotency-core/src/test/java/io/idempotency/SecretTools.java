package io.idempotency;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Map;

import io.idempotency.key.IdempotencyKey;

/** Tools that receive, quote and return secrets: none of them may reach the ledger in clear text. */
public class SecretTools {

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

	@IdempotentTool(name = "unlock", reconcile = "notFound", sensitive = "pin")
	public String unlock(String door, String pin) {
		throw new IllegalStateException("door " + door + " refused pin " + pin);
	}

	Reconciliation<String> notFound(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

}
