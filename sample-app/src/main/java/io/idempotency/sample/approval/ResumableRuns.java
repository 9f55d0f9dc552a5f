package io.idempotency.sample.approval;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.idempotency.reconcile.ApprovalDecidedEvent;
import io.idempotency.sample.agent.Agent;
import io.idempotency.sample.agent.RunTranscript;

import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * The runs a person's decision left to resume: each call approved, rejected or expired is published as an
 * {@link ApprovalDecidedEvent}, with its run and user; the page offers "Resume run" for that run until it is
 * resumed. Kept in memory: a restart forgets them, while the ledger keeps every decision.
 */
@Component
public class ResumableRuns {

	/**
	 * A run to resume.
	 *
	 * @param decision {@code approved}, {@code rejected} or {@code expired}
	 * @param decidedBy who decided; {@code null} for a call that expired
	 * @param reason the person's reason, or why the call expired
	 */
	public record Resumable(String runId, String userId, String tool, String decision, String decidedBy,
			String reason, long order) {
	}

	private final Map<String, Resumable> runs = new ConcurrentHashMap<>();

	private final Agent agent;

	private long decisions;

	ResumableRuns(Agent agent) {
		this.agent = agent;
	}

	@EventListener
	void decided(ApprovalDecidedEvent event) {
		Resumable run = new Resumable(event.runId(), event.userId(), event.tool(),
				event.decision().name().toLowerCase(Locale.ROOT), event.request().decidedBy(),
				event.request().decisionReason(), next());
		this.runs.put(event.runId(), run);
	}

	/** The runs to resume, the latest decision first. */
	public List<Resumable> all() {
		return this.runs.values().stream().sorted(Comparator.comparingLong(Resumable::order).reversed()).toList();
	}

	/** The run, if a decision left it to resume. */
	public Optional<Resumable> find(String runId) {
		return Optional.ofNullable(this.runs.get(runId));
	}

	/**
	 * Resumes the run for its user: the agent carries on, and calls again what awaited approval. Then the run is
	 * no longer offered.
	 * @throws IllegalArgumentException if no decision left this run to resume
	 */
	public RunTranscript resume(String runId) {
		Resumable run = find(runId).orElseThrow(() -> new IllegalArgumentException(
				"Run " + runId + " has no decided approval to resume it for: approve or reject its call first"));
		RunTranscript transcript = this.agent.resume(run.runId(), run.userId());
		this.runs.remove(runId, run);
		return transcript;
	}

	private synchronized long next() {
		return ++this.decisions;
	}

}
