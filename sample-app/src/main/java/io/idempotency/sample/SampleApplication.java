package io.idempotency.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An agent whose model calls tools twice in one run and again in a new run, to show which calls are one
 * intent. Runs the script once on an embedded H2 database, needs no network, and exits.
 */
@SpringBootApplication
public class SampleApplication {

	public static void main(String[] args) {
		System.exit(SpringApplication.exit(SpringApplication.run(SampleApplication.class, args)));
	}

}
