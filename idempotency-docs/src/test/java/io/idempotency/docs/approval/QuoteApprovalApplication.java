package io.idempotency.docs.approval;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableAsync;

/**
 * A new application made of the approval page's snippets as docs/approvals.md shows them: a tool whose large
 * quotes wait for a person ({@link QuoteTools}), an assistant that keeps each run's conversation
 * ({@link QuoteAssistant}), and the listener that resumes a run once its call is decided
 * ({@link ResumeDecidedRuns}); its tests give it its database and a scripted model.
 */
@SpringBootApplication
@EnableAsync
class QuoteApprovalApplication {

    public static void main(String[] args) {
        SpringApplication.run(QuoteApprovalApplication.class, args);
    }

}
