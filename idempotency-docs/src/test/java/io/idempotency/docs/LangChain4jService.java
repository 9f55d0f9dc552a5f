package io.idempotency.docs;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import io.idempotency.langchain4j.IdempotentLangChain4jTools;

/** docs/what-the-model-reads.md: an AI service given a Spring bean's idempotent tools. */
class LangChain4jService {

    interface Assistant {

        String chat(String message);

    }

    Assistant assistant(ChatModel chatModel, Object ticketTools) {
        // tag::ai-service[]
        Assistant assistant = AiServices.builder(Assistant.class)
            .chatModel(chatModel)
            .tools(IdempotentLangChain4jTools.from(ticketTools))   // ticketTools: the Spring bean, with its advice
            .build();
        // end::ai-service[]
        return assistant;
    }

}
