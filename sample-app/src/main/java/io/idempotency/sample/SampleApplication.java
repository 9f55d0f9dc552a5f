package io.idempotency.sample;

import java.time.Clock;
import java.util.Arrays;
import java.util.stream.Stream;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * An inside-sales assistant on Spring AI whose tools are called twice and act once. It serves a page at
 * {@code http://localhost:8080}; with {@code --demo} it plays the classic duplicate scenarios against its
 * own services, prints what happened, and exits 0 only if every expectation held.
 */
@SpringBootApplication
public class SampleApplication {

	/** The time the transcripts record and the demo waits by. */
	@Bean
	Clock clock() {
		return Clock.systemUTC();
	}

	public static void main(String[] args) {
		boolean demo = Arrays.asList(args).contains("--demo");
		if (demo && Arrays.stream(args).noneMatch((arg) -> arg.startsWith("--server.port"))) {
			// The demo talks to itself over HTTP: any free port, so it runs beside a running sample.
			args = Stream.concat(Arrays.stream(args), Stream.of("--server.port=0")).toArray(String[]::new);
		}
		ConfigurableApplicationContext context = SpringApplication.run(SampleApplication.class, args);
		if (demo) {
			int failed = context.getBean(Demo.class).play(System.out);
			System.exit(SpringApplication.exit(context, () -> (failed == 0) ? 0 : 1));
		}
	}

}
