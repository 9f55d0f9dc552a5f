package io.idempotency.docs.quickstart;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A new application made of the quick start's snippets as README.md and the guide show them: the ticket
 * system ({@link TicketSystem}), the tool ({@link TicketTools}), a run per prompt ({@link Assistant}), and the
 * Actuator's security ({@link ActuatorSecurityConfiguration}); what the pages leave to the application is its help desk
 * ({@link HelpDesk}), its {@code DataSource} and its model, which its tests give it.
 */
@SpringBootApplication
class QuickStartApplication {

    public static void main(String[] args) {
        SpringApplication.run(QuickStartApplication.class, args);
    }

}
