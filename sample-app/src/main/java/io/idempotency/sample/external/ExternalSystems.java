package io.idempotency.sample.external;

import java.time.Clock;

import io.idempotency.sample.SampleSchema;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The external systems, each on its own loopback port ({@code 0}: any free one). They keep their data in
 * tables of their own, so that what they did survives a restart of the application.
 */
@Configuration(proxyBeanMethods = false)
public class ExternalSystems {

	@Bean
	TicketSystem ticketSystem(JdbcTemplate jdbc, SampleSchema schema, @Value("${sample.tickets.port:0}") int port) {
		return new TicketSystem(jdbc, port);
	}

	@Bean
	QuoteDelivery quoteDelivery(JdbcTemplate jdbc, SampleSchema schema, @Value("${sample.delivery.port:0}") int port) {
		return new QuoteDelivery(jdbc, port);
	}

	@Bean
	Warehouse warehouse(JdbcTemplate jdbc, SampleSchema schema, Clock clock,
			@Value("${sample.warehouse.port:0}") int port) {
		return new Warehouse(jdbc, clock, port);
	}

}
