package io.idempotency.docs;

import java.util.Map;
import java.util.function.Function;

import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.idempotency.Reconciliation;
import io.idempotency.ai.IdempotentToolCallbacks;

import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.function.FunctionToolCallback;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** docs/tools-runs-and-keys.md: a {@code FunctionToolCallback} made idempotent as an {@code IdempotentFunction}. */
class FunctionTools {

    record OpenTicket(String accountName, String issue) {
    }

    record Ticket(String id) {
    }

    /** Opens tickets, and finds the one a call may have opened. */
    interface TicketDesk extends Function<OpenTicket, Ticket> {

        Reconciliation<String> reconcile(Map<String, Object> arguments);

    }

    @Configuration(proxyBeanMethods = false)
    static class ToolConfiguration {

        // tag::function-callback[]
        @Bean
        ToolCallback openTicket(TicketDesk desk, IdempotentCalls calls) {
            ToolCallback callback = FunctionToolCallback.builder("open_ticket", desk)   // a Function<OpenTicket, Ticket>
                .description("Open a support ticket").inputType(OpenTicket.class).build();
            IdempotentFunction<String> idempotency = IdempotentFunction.builder("open_ticket", String.class)
                .reconcile((key, arguments) -> desk.reconcile(arguments))   // Reconciliation<String>, as the callback's text
                .build();
            return IdempotentToolCallbacks.idempotent(callback, idempotency, calls);
        }
        // end::function-callback[]

    }

}
