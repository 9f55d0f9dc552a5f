package io.idempotency.docs.approval;

import io.idempotency.run.Run;
import io.idempotency.run.RunContext;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.stereotype.Service;

// The approval page's assistant, as docs/approvals.md shows it.
// tag::assistant[]
@Service
class QuoteAssistant {

    private final ChatClient chatClient;

    QuoteAssistant(ChatClient.Builder chatClientBuilder, QuoteTools quoteTools) {
        // Each run's conversation is kept under its run id, so a resumed run repeats the same call.
        ChatMemory memory = MessageWindowChatMemory.builder().build();
        this.chatClient = chatClientBuilder.defaultTools(quoteTools)
                .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build())
                .build();
    }

    // A request, or the resumption of one, in its run: the tools' calls are keyed by it.
    String ask(Run run, String message) {
        return RunContext.supply(run, () -> chatClient.prompt(message)
                .advisors((advisor) -> advisor.param(ChatMemory.CONVERSATION_ID, run.runId()))
                .call().content());
    }
}
// end::assistant[]
