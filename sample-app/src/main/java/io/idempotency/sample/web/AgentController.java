package io.idempotency.sample.web;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.idempotency.reconcile.Approvals;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.Settlements;
import io.idempotency.sample.agent.Agent;
import io.idempotency.sample.approval.ResumableRuns;
import io.idempotency.sample.agent.RunTranscript;
import io.idempotency.sample.external.Fault;
import io.idempotency.sample.external.QuoteDelivery;
import io.idempotency.sample.external.TicketSystem;
import io.idempotency.sample.external.Warehouse;
import io.idempotency.sample.tools.QuoteTools;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** What the page reads and does: the chat, the runs, the ledger, the effects, the switches. */
@RestController
@RequestMapping("/api")
public class AgentController {

	public record Message(String message) {
	}

	public record Run(RunTranscript transcript, List<LedgerView.Row> ledger) {
	}

	public record Switches(Map<String, Fault> faults, boolean idempotencyOff, boolean idempotencyEnabled) {
	}

	public record State(List<Run> runs, List<LedgerView.Row> ledger, LedgerView.Replays replays,
			List<TicketSystem.Ticket> tickets, List<QuoteTools.Quote> quotes, List<QuoteDelivery.Send> sends,
			List<Warehouse.Reservation> reservations, Switches switches) {
	}

	private final Agent agent;

	private final LedgerView ledger;

	private final TicketSystem tickets;

	private final QuoteDelivery delivery;

	private final QuoteTools quotes;

	private final Warehouse warehouse;

	private final ObjectProvider<Reconciler> reconciler;

	private final ObjectProvider<Settlements> settlements;

	private final Duration reconcilerInterval;

	private final ObjectProvider<Approvals> approvals;

	private final ResumableRuns resumable;

	AgentController(Agent agent, LedgerView ledger, TicketSystem tickets, QuoteDelivery delivery, QuoteTools quotes,
			Warehouse warehouse, ObjectProvider<Reconciler> reconciler, ObjectProvider<Settlements> settlements,
			ObjectProvider<Approvals> approvals, ResumableRuns resumable,
			@Value("${idempotency.reconciler.interval:30s}") Duration reconcilerInterval) {
		this.approvals = approvals;
		this.resumable = resumable;
		this.settlements = settlements;
		this.reconcilerInterval = reconcilerInterval;
		this.agent = agent;
		this.ledger = ledger;
		this.tickets = tickets;
		this.delivery = delivery;
		this.quotes = quotes;
		this.warehouse = warehouse;
		this.reconciler = reconciler;
	}

	/** One user message: one run, unless the request carries {@code Idempotency-Key}, which then is the run. */
	@PostMapping("/chat")
	public Run chat(@RequestBody Message message) {
		RunTranscript transcript = this.agent.ask(message.message());
		return new Run(transcript, this.ledger.ofRun(transcript.getRunId()));
	}

	@GetMapping("/state")
	public State state() {
		LedgerView.Replays replays = this.ledger.replays();
		List<Run> runs = this.agent.transcripts()
			.stream()
			.map((transcript) -> new Run(transcript, this.ledger.ofRun(transcript.getRunId())))
			.toList();
		return new State(runs, this.ledger.latest(50), replays, this.tickets.tickets(),
				this.quotes.quotes(), this.delivery.sends(), this.warehouse.reservations(), switches());
	}

	/** Arms the next request to an external system with a fault: {@code {"service": "tickets", "fault": "..."}}. */
	@PostMapping("/faults")
	public Switches fault(@RequestBody Map<String, String> request) {
		Fault fault = Fault.valueOf(String.valueOf(request.get("fault")));
		switch (String.valueOf(request.get("service"))) {
			case "tickets" -> this.tickets.arm(fault);
			case "delivery" -> this.delivery.arm(fault);
			case "warehouse" -> this.warehouse.arm(fault);
			default -> throw new IllegalArgumentException("No external system '" + request.get("service")
					+ "': the systems are 'tickets', 'delivery' and 'warehouse'");
		}
		return switches();
	}

	@PostMapping("/idempotency")
	public Switches idempotency(@RequestBody Map<String, Boolean> request) {
		this.agent.idempotencyOff(Boolean.TRUE.equals(request.get("off")));
		return switches();
	}

	/**
	 * Runs the reconciler now, rather than at its next interval, until each call open now is settled or tried:
	 * a call that timed out a moment ago is waited for until it is stale, a few seconds. Then expires the calls
	 * nobody approved in time.
	 */
	@PostMapping("/reconcile")
	public ReconcileNow.Result reconcile() {
		Reconciler reconciler = this.reconciler.getIfAvailable();
		Settlements settlements = this.settlements.getIfAvailable();
		if (reconciler == null || settlements == null) {
			throw new IllegalStateException("Idempotency is disabled: there is no reconciler");
		}
		return new ReconcileNow(reconciler, settlements, this.approvals.getIfAvailable(), this.reconcilerInterval,
				Clock.systemUTC())
			.run();
	}

	/**
	 * Resumes a run that a person's decision on one of its calls left to resume: the agent carries on in that
	 * run, for its user, and calls again what awaited approval.
	 */
	@PostMapping("/runs/{runId}/resume")
	public Run resume(@PathVariable String runId) {
		RunTranscript transcript = this.resumable.resume(runId);
		return new Run(transcript, this.ledger.ofRun(transcript.getRunId()));
	}

	@ExceptionHandler({ IllegalArgumentException.class, IllegalStateException.class })
	ResponseEntity<Map<String, String>> badRequest(RuntimeException ex) {
		return ResponseEntity.status(HttpStatus.BAD_REQUEST).body(Map.of("error", String.valueOf(ex.getMessage())));
	}

	/** The model or a tool failed in a way the agent could not answer: say so, rather than a bare 500. */
	@ExceptionHandler(RuntimeException.class)
	ResponseEntity<Map<String, String>> agentFailed(RuntimeException ex) {
		return ResponseEntity.status(HttpStatus.BAD_GATEWAY)
			.body(Map.of("error", "The agent could not answer: " + ex.getMessage()));
	}

	private Switches switches() {
		return new Switches(
				Map.of("tickets", this.tickets.armed(), "delivery", this.delivery.armed(), "warehouse",
						this.warehouse.armed()),
				this.agent.idempotencyOff(), this.reconciler.getIfAvailable() != null);
	}

}
