package io.idempotency.sample.tools;

import java.net.http.HttpClient;
import java.time.Duration;

import io.idempotency.sample.external.QuoteDelivery;
import io.idempotency.sample.external.TicketSystem;
import io.idempotency.sample.external.Warehouse;

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
		this.ticketSystem = builder.clone().requestFactory(requests).baseUrl(tickets.baseUrl()).build();
		this.quoteDelivery = builder.clone().requestFactory(requests).baseUrl(delivery.baseUrl()).build();
		this.warehouse = builder.clone().requestFactory(requests).baseUrl(warehouse.baseUrl()).build();
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
