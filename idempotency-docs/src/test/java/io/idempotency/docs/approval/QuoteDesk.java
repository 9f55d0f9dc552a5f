package io.idempotency.docs.approval;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.stereotype.Component;

/** The quotes the application sends, in memory: what the page leaves to the application. */
@Component
class QuoteDesk {

    record Quote(String customer, int quantity, String reference) {
    }

    private final Map<String, Quote> byReference = new ConcurrentHashMap<>();

    private final List<Quote> sent = new CopyOnWriteArrayList<>();

    Quote send(String customer, int quantity, String reference) {
        Quote quote = new Quote(customer, quantity, reference);
        this.byReference.put(reference, quote);
        this.sent.add(quote);
        return quote;
    }

    Optional<Quote> findByReference(String reference) {
        return Optional.ofNullable(this.byReference.get(reference));
    }

    /** The quotes sent to a customer, in order. */
    List<Quote> sentTo(String customer) {
        return this.sent.stream().filter((quote) -> quote.customer().equals(customer)).toList();
    }

}
