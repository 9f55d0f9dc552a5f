package io.idempotency.docs.quickstart;

import java.util.Map;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.stereotype.Service;

// The quick start's run per prompt, as README.md and docs/getting-started.md show it.
// tag::assistant[]
@Service
class Assistant {

    private final ChatClient chatClient;

    private final TicketTools ticketTools;

    Assistant(ChatClient.Builder chatClientBuilder, TicketTools ticketTools) {
        this.chatClient = chatClientBuilder.build();
        this.ticketTools = ticketTools;
    }

    // One run per prompt: the model's repeated calls within it act once; the next prompt is a new run.
    String ask(String question, String userId) {
        return chatClient.prompt(question)
                .tools(ticketTools)
                .toolContext(Map.of("userId", userId))   // optional: the user, so replays never cross users
                .call().content();
    }
}
// end::assistant[]
