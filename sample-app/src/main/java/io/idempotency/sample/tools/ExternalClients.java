package io.idempotency.sample.tools;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

import io.idempotency.sample.external.QuoteDelivery;
import io.idempotency.sample.external.TicketSystem;
import io.idempotency.sample.external.Warehouse;

import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * HTTP clients of the external systems, made from Boot's {@code RestClient.Builder}, with a read timeout
 * of two seconds: a system that answers later leaves the call's outcome unknown.
 */
@Component
public class ExternalClients {

	private static final Duration READ_TIMEOUT = Duration.ofSeconds(2);

	private final RestClient ticketSystem;

	private final RestClient quoteDelivery;

	private final RestClient warehouse;

	ExternalClients(RestClient.Builder builder, TicketSystem tickets, QuoteDelivery delivery, Warehouse warehouse) {
		JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(
				HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build());
		requests.setReadTimeout(READ_TIMEOUT);
		this.ticketSystem = client(builder, requests, "the ticket system", tickets.baseUrl());
		this.quoteDelivery = client(builder, requests, "the quote delivery API", delivery.baseUrl());
		this.warehouse = client(builder, requests, "the warehouse", warehouse.baseUrl());
	}

	private static RestClient client(RestClient.Builder builder, ClientHttpRequestFactory requests, String system,
			String baseUrl) {
		return builder.clone().requestFactory(requests).baseUrl(baseUrl).requestInterceptor((request, body, execution) -> {
			try {
				return execution.execute(request, body);
			}
			catch (IOException ex) {
				// The JDK client's read timeout has no message of its own: the model read "...: null".
				if (!(ex instanceof HttpTimeoutException) && ex.getMessage() != null) {
					throw ex;
				}
				HttpTimeoutException timeout = new HttpTimeoutException(system + " did not answer within "
						+ READ_TIMEOUT.toSeconds() + " s: whether it acted is not known");
				timeout.initCause(ex);
				throw timeout;
			}
		}).build();
	}

	RestClient ticketSystem() {
		return this.ticketSystem;
	}

	RestClient quoteDelivery() {
		return this.quoteDelivery;
	}

	RestClient warehouse() {
		return this.warehouse;
	}

}
