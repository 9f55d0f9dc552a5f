package io.idempotency.docs.approval;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.idempotency.reconcile.ApprovalDecidedEvent;
import io.idempotency.run.Run;

import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Async;
import org.springframework.stereotype.Component;

// The approval page's listener, as docs/approvals.md shows it.
// tag::resume[]
@Component
class ResumeDecidedRuns {

    private final QuoteAssistant assistant;

    private final List<String> replies = new CopyOnWriteArrayList<>();

    ResumeDecidedRuns(QuoteAssistant assistant) {
        this.assistant = assistant;
    }

    // Published once a person approves or rejects the call, or it expires, on the instance that decided.
    @Async
    @EventListener
    void resume(ApprovalDecidedEvent decided) {
        Run run = new Run(decided.runId(), decided.userId());
        // The call as it was made, so that the model repeats it exactly: other arguments are another action.
        String call = decided.tool() + " " + decided.request().entry().arguments();
        String reply = assistant.ask(run, decided.approved()
                ? "A person approved the action you were waiting for (" + call + "): carry on."
                : "The action you were waiting for (" + call + ") was decided: carry on.");
        replies.add(reply);   // in an application: to the user, by mail or in their chat
    }
// end::resume[]

    /** What the resumed runs answered, in order. */
    List<String> replies() {
        return List.copyOf(this.replies);
    }
// tag::resume[]
}
// end::resume[]
