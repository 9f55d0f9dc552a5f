package io.idempotency.docs;

import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import reactor.core.publisher.Flux;
import reactor.util.context.Context;

import org.springframework.ai.chat.client.ChatClient;

/** docs/tools-runs-and-keys.md: the run of a stream handed to a reactive caller, in Reactor's context. */
class StreamingRun {

    /** The tools given to the model. */
    static class SupportTools {
    }

    Flux<String> stream(ChatClient chatClient, String question, SupportTools tools, String runId, String userId) {
        // tag::stream-context[]
        Flux<String> answer = chatClient.prompt(question).tools(tools).stream().content()
                .contextWrite(Context.of(RunContext.CONTEXT_KEY, new Run(runId, userId)));
        // end::stream-context[]
        return answer;
    }

}
