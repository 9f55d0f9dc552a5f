package io.idempotency;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.idempotency.key.IdempotencyKey;

/**
 * A tool that several application instances share, for the tests on database clusters: its effect is counted,
 * per key, outside any database, so that an effect that happened twice is seen whatever a node lost.
 */
public class ClusterTools {

	private final Map<String, AtomicInteger> effects;

	private final AtomicLong lastEffectAt;

	private final Map<String, Queue<Long>> effectTimes;

	/**
	 * @param effects the count of effects per external reference, shared by every instance in the test
	 * @param lastEffectAt set to {@link System#nanoTime()} at every effect
	 */
	ClusterTools(Map<String, AtomicInteger> effects, AtomicLong lastEffectAt) {
		this(effects, lastEffectAt, new ConcurrentHashMap<>());
	}

	/**
	 * @param effectTimes per external reference, {@link System#nanoTime()} at each of its effects
	 */
	ClusterTools(Map<String, AtomicInteger> effects, AtomicLong lastEffectAt, Map<String, Queue<Long>> effectTimes) {
		this.effects = effects;
		this.lastEffectAt = lastEffectAt;
		this.effectTimes = effectTimes;
	}

	static Map<String, AtomicInteger> newEffects() {
		return new ConcurrentHashMap<>();
	}

	@IdempotentTool(name = "book_slot", reconcile = "findBooking")
	public String bookSlot(String slot) {
		String reference = IdempotentInvocation.current().key().externalReference("b");
		this.effects.computeIfAbsent(reference, (r) -> new AtomicInteger()).incrementAndGet();
		long now = System.nanoTime();
		this.lastEffectAt.set(now);
		this.effectTimes.computeIfAbsent(reference, (r) -> new ConcurrentLinkedQueue<>()).add(now);
		return reference;
	}

	Reconciliation<String> findBooking(IdempotencyKey key) {
		String reference = key.externalReference("b");
		return this.effects.containsKey(reference) ? Reconciliation.found(reference) : Reconciliation.notFound();
	}

}
