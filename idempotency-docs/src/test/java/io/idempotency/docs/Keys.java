package io.idempotency.docs;

import java.lang.reflect.Method;
import java.util.Map;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;

/** docs/tools-runs-and-keys.md: keys derived from JSON text, from values and from an invocation. */
class Keys {

    void derive(String runId, Method method, Object[] args) {
        // tag::derive[]
        // Arguments as a model sends them: JSON text. Numbers keep their exact value.
        IdempotencyKey first = IdempotencyKeys.derive("draft_quote", "{\"sku\":\"SKU-4411\",\"quantity\":200}", runId);
        IdempotencyKey retry = IdempotencyKeys.derive("draft_quote", "{\"quantity\":200.0,\"sku\":\" SKU-4411\"}", runId);
        first.equals(retry); // true: one intent

        // Arguments as a tool method receives them: parameter name to Java value (records and beans too).
        IdempotencyKey same = IdempotencyKeys.derive("draft_quote", Map.of("sku", "SKU-4411", "quantity", 200), runId);

        // Or straight from an invocation; compile with -parameters.
        IdempotencyKey fromCall = IdempotencyKeys.derive("draft_quote", method, args, runId);
        // end::derive[]
        use(same, fromCall);
    }

    private static void use(IdempotencyKey... keys) {
    }

}
