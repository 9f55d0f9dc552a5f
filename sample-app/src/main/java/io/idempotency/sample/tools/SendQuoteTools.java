package io.idempotency.sample.tools;

import java.util.UUID;

import io.idempotency.IdempotentInvocation;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.sample.external.QuoteDelivery.Send;

import org.springframework.ai.tool.annotation.Tool;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * Sending a quote goes through an external API that honours {@code Idempotency-Key}. The key sent is
 * derived from the call's key, so the API deduplicates the library's own retries, and the reconciler can
 * ask the API whether a send with that key happened.
 */
@Component
public class SendQuoteTools {

	private final RestClient delivery;

	SendQuoteTools(ExternalClients clients) {
		this.delivery = clients.quoteDelivery();
	}

	@Tool(name = "send_quote", description = "Send a drafted quote to the customer, by quote id")
	@IdempotentTool(reconcile = "findSend")
	public Send sendQuote(long quoteId) {
		return this.delivery.post()
			.uri("/quotes/{id}/send", quoteId)
			.header("Idempotency-Key", deliveryKey())
			.retrieve()
			.body(Send.class);
	}

	/** Did the send of this call happen? Asked by the reconciler when the outcome is unknown. */
	Reconciliation<Send> findSend(IdempotencyKey key) {
		return this.delivery.get()
			.uri("/sends?idempotencyKey={key}", key.externalReference("send"))
			.exchange((request, response) -> (response.getStatusCode().value() == 404) ? Reconciliation.<Send>notFound()
					: Reconciliation.found(response.bodyTo(Send.class)));
	}

	/** The key the API deduplicates on; with idempotency off there is no call key, so a new one each call. */
	private static String deliveryKey() {
		return IdempotentInvocation.find()
			.map((call) -> call.key().externalReference("send"))
			.orElseGet(() -> "send-" + UUID.randomUUID());
	}

}
