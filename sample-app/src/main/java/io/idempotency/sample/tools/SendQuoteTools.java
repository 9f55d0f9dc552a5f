package io.idempotency.sample.tools;

import java.math.BigDecimal;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import io.idempotency.Approval;
import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.idempotency.IdempotentInvocation;
import io.idempotency.Reconciliation;
import io.idempotency.ai.IdempotentToolCallbacks;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.sample.external.QuoteDelivery.Send;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.function.FunctionToolCallback;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * Sending a quote goes through an external API that honours {@code Idempotency-Key}. The key sent is
 * derived from the call's key, so the API deduplicates the library's own retries, and the reconciler can
 * ask the API whether a send with that key happened.
 * <p>
 * This tool is not an annotated method: it is a Spring AI {@code FunctionToolCallback}, made idempotent
 * with an {@link IdempotentFunction} (its name, its result as the callback's text, and how to reconcile
 * it), as a tool defined at run time or from configuration would be. A quote over
 * 10,000 ({@link #APPROVAL_THRESHOLD}) is sent only once a person approved it on the page's operator panel.
 */
@Component
public class SendQuoteTools {

	private static final JsonMapper JSON = new JsonMapper();

	private static final DecimalFormat AMOUNT = new DecimalFormat("#,##0.##", DecimalFormatSymbols.getInstance(Locale.ROOT));

	/** A quote whose total is over this is sent only once a person approved it. */
	public static final BigDecimal APPROVAL_THRESHOLD = new BigDecimal("10000");

	/** What the model sends: the quote to send. */
	public record SendQuote(long quoteId) {
	}

	private final RestClient delivery;

	private final ToolCallback plain;

	private final QuoteTools quotes;

	private final ToolCallback idempotent;

	SendQuoteTools(ExternalClients clients, IdempotentCalls calls, QuoteTools quotes) {
		this.delivery = clients.quoteDelivery();
		this.plain = FunctionToolCallback.builder("send_quote", this::send)
			.description("Send a drafted quote to the customer, by quote id")
			.inputType(SendQuote.class)
			.build();
		this.quotes = quotes;
		IdempotentFunction<String> sendQuote = IdempotentFunction.builder("send_quote", String.class)
			.reconcile((key, arguments) -> findSend(key))
			.approval(this::approval)
			.build();
		this.idempotent = IdempotentToolCallbacks.idempotent(this.plain, sendQuote, calls);
	}

	/** The tool, each call at most once per key. */
	public ToolCallback sendQuote() {
		return this.idempotent;
	}

	/** The same tool without idempotency, as it would be without the library. */
	public ToolCallback sendQuoteWithoutIdempotency() {
		return this.plain;
	}

	private Send send(SendQuote request) {
		return this.delivery.post()
			.uri("/quotes/{id}/send", request.quoteId())
			.header("Idempotency-Key", deliveryKey())
			.retrieve()
			.body(Send.class);
	}

	/**
	 * A quote over {@link #APPROVAL_THRESHOLD} needs a person's approval before it is sent; the reason is what
	 * the person deciding reads, and what the model is told the call awaits.
	 */
	private Approval approval(Map<String, Object> arguments) {
		if (!(arguments.get("quoteId") instanceof Number quoteId)) {
			return Approval.notRequired();
		}
		return this.quotes.find(quoteId.longValue())
			.filter((quote) -> quote.total().compareTo(APPROVAL_THRESHOLD) > 0)
			.map((quote) -> Approval.required("quote #" + quote.id() + " totals " + AMOUNT.format(quote.total())
					+ ", over the " + AMOUNT.format(APPROVAL_THRESHOLD) + " a rep may send without approval"))
			.orElse(Approval.notRequired());
	}

	/** Did the send of this call happen? Asked by the reconciler when the outcome is unknown. */
	private Reconciliation<String> findSend(IdempotencyKey key) {
		return this.delivery.get()
			.uri("/sends?idempotencyKey={key}", key.externalReference("send"))
			.exchange((request, response) -> (response.getStatusCode().value() == 404) ? Reconciliation.<String>notFound()
					: Reconciliation.found(JSON.writeValueAsString(response.bodyTo(Send.class))));
	}

	/** The key the API deduplicates on; with idempotency off there is no call key, so a new one each call. */
	private static String deliveryKey() {
		return IdempotentInvocation.find()
			.map((call) -> call.key().externalReference("send"))
			.orElseGet(() -> "send-" + UUID.randomUUID());
	}

}
