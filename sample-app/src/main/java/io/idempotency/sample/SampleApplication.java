package io.idempotency.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An agent whose model calls a tool twice in one run and again in a new run, to show which calls are one
 * intent. Runs on an embedded H2 database and needs no network.
 */
@SpringBootApplication
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
