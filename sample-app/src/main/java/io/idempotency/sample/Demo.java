package io.idempotency.sample;

import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import io.idempotency.Answer;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.ApprovalRequest;
import io.idempotency.ledger.CallRecord;
import io.idempotency.reconcile.ApprovalRefusedException;
import io.idempotency.reconcile.Approvals;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.SettlementRefusedException;
import io.idempotency.reconcile.Settlements;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.sample.agent.Agent;
import io.idempotency.sample.agent.RunTranscript;
import io.idempotency.sample.approval.ResumableRuns;
import io.idempotency.sample.external.Fault;
import io.idempotency.sample.external.QuoteDelivery;
import io.idempotency.sample.external.TicketSystem;
import io.idempotency.sample.external.Warehouse;
import io.idempotency.sample.tools.QuoteTools;
import io.idempotency.sample.tools.ReservationTools;
import io.idempotency.sample.tools.TicketTools;
import io.idempotency.sample.web.LedgerView;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * The duplicate scenarios of agent tool calls, played end to end against the running application and its
 * external systems, each with the expectation that shows the pattern works. {@link #play} narrates them and
 * returns how many expectations failed; the tests play each scenario on its own.
 */
@Component
public class Demo {

	private static final String ACCOUNT = "Henderson Industrial";

	private final Agent agent;

	private final TicketTools ticketTools;

	private final TicketSystem tickets;

	private final QuoteDelivery delivery;

	private final QuoteTools quotes;

	private final LedgerView ledger;

	private final ObjectProvider<Reconciler> reconciler;

	private final Warehouse warehouse;

	private final ReservationTools reservations;

	private final ObjectProvider<Settlements> settlements;

	private final Environment environment;

	private final ObjectProvider<Approvals> approvals;

	private final ResumableRuns resumable;

	private final Narration story = new Narration();

	private final LedgerWaits waits;

	Demo(Agent agent, TicketTools ticketTools, TicketSystem tickets, QuoteDelivery delivery, QuoteTools quotes,
			LedgerView ledger, ObjectProvider<Reconciler> reconciler, Warehouse warehouse, ReservationTools reservations,
			ObjectProvider<Settlements> settlements, ObjectProvider<Approvals> approvals, ResumableRuns resumable,
			Environment environment, Clock clock) {
		this.approvals = approvals;
		this.resumable = resumable;
		this.agent = agent;
		this.ticketTools = ticketTools;
		this.tickets = tickets;
		this.delivery = delivery;
		this.quotes = quotes;
		this.ledger = ledger;
		this.reconciler = reconciler;
		this.warehouse = warehouse;
		this.reservations = reservations;
		this.settlements = settlements;
		this.environment = environment;
		this.waits = new LedgerWaits(ledger, clock);
	}

	/** Where the scenarios narrate what happens. */
	public synchronized Demo narrateTo(PrintStream out) {
		this.story.to(out);
		return this;
	}

	/** Plays every scenario, narrating to {@code out}; returns the number of expectations that failed. */
	public synchronized int play(PrintStream out) {
		this.story.to(out);
		this.story.reset();
		out.println("Idempotent tool calls: the scenarios, played against this application's own services.");
		networkRetry();
		codeRetry();
		long quoteId = modelRepeatsACallReordered();
		mondayAndTuesday();
		twoTicketsInOneRun();
		timeoutAfterTheEffect();
		failureBeforeTheEffect(quoteId);
		replayRate();
		settledByHand();
		approvedAndResumed();
		rejectedAndResumed();
		out.println();
		int failed = this.story.failed();
		out.println((failed == 0) ? "Every expectation held." : failed + " expectation(s) failed.");
		return failed;
	}

	/** A client resends the same request after a network failure, with the same Idempotency-Key. */
	public boolean networkRetry() {
		this.story.title("1. The network retry: the same HTTP request twice, with the same Idempotency-Key");
		String key = "req-" + UUID.randomUUID();
		RestClient http = RestClient.create("http://localhost:" + this.environment.getProperty("local.server.port"));
		int before = this.tickets.tickets().size();
		for (int attempt = 1; attempt <= 2; attempt++) {
			Map<?, ?> run = http.post()
				.uri("/api/chat")
				.header("Idempotency-Key", key)
				.body(Map.of("message", "open a ticket for the cracked housing"))
				.retrieve()
				.body(Map.class);
			Map<?, ?> transcript = (Map<?, ?>) run.get("transcript");
			this.story.say("request " + attempt + " (run " + transcript.get("runId") + "): " + outcomes(transcript));
		}
		return this.story.expect("one ticket for the two requests", this.tickets.tickets().size() - before, 1);
	}

	/** The application's own code calls the tool again within the run, after a failure it took for transient. */
	public boolean codeRetry() {
		this.story.title("2. The code retry: the application calls open_ticket again within the run");
		int before = this.tickets.tickets().size();
		Run run = new Run("code-retry-" + UUID.randomUUID(), Agent.USER);
		List<TicketSystem.Ticket> opened = RunContext.supply(run,
				() -> List.of(this.ticketTools.openTicket(ACCOUNT, "loose fitting", null),
						this.ticketTools.openTicket(ACCOUNT, " loose fitting", null)));
		this.story.say("first call: " + opened.get(0).id() + ", second call: " + opened.get(1).id());
		return this.story.expect("one ticket for the two calls", this.tickets.tickets().size() - before, 1)
				& this.story.expect("the retry answered with the same ticket", opened.get(1).id().equals(opened.get(0).id()));
	}

	/** The model calls draft_quote again with its arguments reordered and re-spaced: one quote, the model told. */
	public long modelRepeatsACallReordered() {
		this.story.title("3. The model calls draft_quote twice, the second time with its arguments reordered and re-spaced");
		int before = this.quotes.quotes().size();
		RunTranscript run = ask("quote 200 of SKU-4411 for Henderson Industrial");
		this.story.expect("one quote", this.quotes.quotes().size() - before, 1);
		this.story.expect("the model was told the second call was a replay", outcomesOf(run, "draft_quote"),
				List.of(Answer.EXECUTED.kind(), Answer.REPLAYED.kind()));
		List<QuoteTools.Quote> all = this.quotes.quotes();
		return all.isEmpty() ? 1 : all.get(all.size() - 1).id();
	}

	/** The same request on two days is two runs, and two tickets: a new intent, not a duplicate. */
	public boolean mondayAndTuesday() {
		this.story.title("4. Monday's and Tuesday's tickets: the same request in two runs");
		int before = this.tickets.tickets().size();
		ask("open a ticket for the seal failure");
		ask("open a ticket for the seal failure");
		return this.story.expect("two tickets, one per run", this.tickets.tickets().size() - before, 2);
	}

	/**
	 * Two different tickets in one run are two intents; the model's twin of one of them in the same turn is
	 * not, and neither is its later repeat that rephrases the description.
	 */
	public boolean twoTicketsInOneRun() {
		this.story.title("5. Two different tickets in one run");
		int before = this.tickets.tickets().size();
		RunTranscript run = ask("open a ticket for the seal failure and one for the pump noise");
		return this.story.expect("two tickets", this.tickets.tickets().size() - before, 2)
				& this.story.expect("the model's twin of the first was a replay, and its rephrased repeat was told the new"
						+ " description was not applied", outcomesOf(run, "open_ticket"),
						List.of(Answer.EXECUTED.kind(), Answer.EXECUTED.kind(), Answer.REPLAYED.kind(),
								Answer.REPLAYED_DIFFERENT_DETAILS.kind()));
	}

	/** The ticket system opens the ticket, then answers too late: unknown, not retried, reconciled. */
	public boolean timeoutAfterTheEffect() {
		this.story.title("6. A timeout after the effect: the ticket is opened, the answer is lost");
		int before = this.tickets.tickets().size();
		this.tickets.arm(Fault.TIMEOUT_AFTER_EFFECT);
		RunTranscript run = ask("open a ticket for the valve leak");
		boolean held = this.story.expect("one ticket, not retried within the run", this.tickets.tickets().size() - before, 1)
				& this.story.expect("the model read the timeout, then 'in progress' for its twin and its repeat",
						outcomesOf(run, "open_ticket"),
						List.of("error", Answer.IN_PROGRESS.kind(), Answer.IN_PROGRESS.kind()));
		Reconciler reconciler = this.reconciler.getIfAvailable();
		if (reconciler == null) {
			return this.story.expect("the reconciler resolves the call", false);
		}
		this.story.say("the reconciler asks the ticket system for the call's reference, once the call is stale");
		Optional<LedgerView.Row> row = this.waits.awaitRow(run.getRunId(), "open_ticket", reconciler, Duration.ofSeconds(60));
		return held & this.story.expect("the reconciler found the ticket: the call is settled as succeeded",
				row.map((settled) -> settled.status() + (settled.reconciled() ? ", reconciled" : "")).orElse("unsettled"),
				"succeeded, reconciled");
	}

	/** The quote delivery API fails before sending: the call failed, and a repeat in the run is not retried. */
	public boolean failureBeforeTheEffect(long quoteId) {
		this.story.title("7. A failure before the effect: quote delivery refuses one request (429 Too Many Requests)");
		int before = this.delivery.sends().size();
		this.delivery.arm(Fault.FAIL_BEFORE_EFFECT);
		RunTranscript run = ask("send quote " + quoteId);
		boolean held = this.story.expect("nothing sent", this.delivery.sends().size() - before, 0)
				& this.story.expect("the model was told the repeat failed before, not retried", outcomesOf(run, "send_quote"),
						List.of("error", Answer.PREVIOUS_ATTEMPT_FAILED.kind()));
		this.story.say("the user asks again: a new run");
		RunTranscript again = ask("send quote " + quoteId);
		return held & this.story.expect("one quote sent", this.delivery.sends().size() - before, 1)
				& this.story.expect("the model's repeat was a replay", outcomesOf(again, "send_quote"),
						List.of(Answer.EXECUTED.kind(), Answer.REPLAYED.kind()));
	}

	/** Replays happen: a rate of zero would mean the keys are unstable. */
	public boolean replayRate() {
		this.story.title("8. The replay rate");
		LedgerView.Replays replays = this.ledger.replays();
		this.story.say(replays.executions() + " executions, " + replays.replays() + " replays");
		return this.story.expect("the replay rate is above zero", replays.replays() > 0);
	}

	/**
	 * The warehouse reserves, then answers too late; its search lists a reservation only an hour after it is
	 * made, so the reconciler cannot tell whether the call took effect and hands it to a human, who looks in the
	 * warehouse and settles it.
	 */
	public boolean settledByHand() {
		this.story.title("9. A call only a person can settle: the warehouse times out after reserving, and its search lags");
		int before = this.warehouse.reservations().size();
		this.warehouse.arm(Fault.TIMEOUT_AFTER_EFFECT);
		RunTranscript run = ask("reserve 50 of SKU-4411 for " + ACCOUNT);
		boolean held = this.story.expect("one reservation, not retried within the run", this.warehouse.reservations().size() - before, 1)
				& this.story.expect("the model read the timeout, then 'in progress' for its repeat", outcomesOf(run, "reserve_stock"),
						List.of("error", Answer.IN_PROGRESS.kind()));
		Reconciler reconciler = this.reconciler.getIfAvailable();
		Settlements settlements = this.settlements.getIfAvailable();
		if (reconciler == null || settlements == null) {
			return this.story.expect("the reconciler hands the call to a human", false);
		}
		this.story.say("the reconciler asks the warehouse's search, which cannot tell yet; after "
				+ reconciler.settings().maxAttempts() + " attempts it hands the call to a human");
		Optional<CallRecord> waiting = this.waits.awaitHuman(run.getRunId(), reconciler, settlements, Duration.ofSeconds(90));
		if (!this.story.expect("the call waits for a human", waiting.isPresent())) {
			return false;
		}
		IdempotencyKey key = waiting.get().entry().key();
		List<Warehouse.Reservation> found = this.warehouse.withReference(key.externalReference("whs"));
		if (!this.story.expect("the warehouse has the call's reservation", found.size(), 1)) {
			return false;
		}
		Warehouse.Reservation reservation = found.get(0);
		this.story.say("an operator finds " + reservation.id() + " in the warehouse and settles the call as succeeded");
		try {
			settlements.settleSucceeded(key, new JsonMapper().writeValueAsString(reservation), "demo-operator",
					reservation.id() + " is in the warehouse");
		}
		catch (SettlementRefusedException ex) {
			return this.story.expect("the settlement is accepted: " + ex.getMessage(), false);
		}
		Warehouse.Reservation repeated = RunContext.supply(new Run(run.getRunId(), Agent.USER),
				() -> this.reservations.reserveStock(ACCOUNT, "SKU-4411", 50));
		this.story.say("the call repeated in its run: " + repeated);
		return held & this.story.expect("a repeat of the call reads the settled reservation", repeated, reservation)
				& this.story.expect("still one reservation", this.warehouse.reservations().size() - before, 1);
	}

	/**
	 * A quote over 10,000 is sent only once a person approves it: the model is told the call awaits approval and
	 * tells the user; a person approves it; the run, resumed, sends it once.
	 */
	public boolean approvedAndResumed() {
		this.story.title("10. A quote over 10,000 waits for a person's approval: approved, the run resumed, sent once");
		return this.story.played(() -> decidedAndResumed(true));
	}

	/** The same, rejected: the run, resumed, is told the person's reason, and nothing is sent. */
	public boolean rejectedAndResumed() {
		this.story.title("11. A quote over 10,000 waits for a person's approval: rejected, the run resumed, nothing sent");
		return this.story.played(() -> decidedAndResumed(false));
	}

	private boolean decidedAndResumed(boolean approve) {
		Approvals approvals = this.approvals.getIfAvailable();
		if (approvals == null) {
			return this.story.expect("a person can approve the call", false);
		}
		int before = this.delivery.sends().size();
		RunTranscript run = ask("quote 1000 of SKU-4411 for " + ACCOUNT + " and send it");
		boolean held = this.story.expect("the model was told send_quote awaits approval", outcomesOf(run, "send_quote"),
				List.of(Answer.AWAITING_APPROVAL.kind()))
				& this.story.expect("the model told the user it awaits approval", run.getAnswer().startsWith("Waiting for approval"))
				& this.story.expect("nothing sent", this.delivery.sends().size() - before, 0);
		Optional<ApprovalRequest> waiting = approvals.awaiting("send_quote", 0, 100)
			.stream()
			.filter((request) -> run.getRunId().equals(request.entry().runId()))
			.findFirst();
		if (!this.story.expect("the call waits for a person's approval", waiting.isPresent())) {
			return false;
		}
		IdempotencyKey key = waiting.get().entry().key();
		String reason = approve ? "the account's volume agreement covers it" : "a discount this size needs the sales director";
		this.story.say("it waits because " + waiting.get().reason() + "; a person " + (approve ? "approves" : "rejects") + " it: " + reason);
		try {
			if (approve) {
				approvals.approve(key, "demo-approver", reason);
			}
			else {
				approvals.reject(key, "demo-approver", reason);
			}
		}
		catch (ApprovalRefusedException ex) {
			return this.story.expect("the decision is accepted: " + ex.getMessage(), false);
		}
		held &= this.story.expect("the decision's event left the run to resume, for its user",
				this.resumable.find(run.getRunId()).map(ResumableRuns.Resumable::userId).orElse(null), Agent.USER);
		this.story.say("the run is resumed: the agent carries on");
		RunTranscript resumed = this.resumable.resume(run.getRunId());
		this.story.narrate(resumed);
		if (approve) {
			return held & this.story.expect("the model's call again, approved, was executed", outcomesOf(resumed, "send_quote"),
					List.of(Answer.EXECUTED.kind()))
					& this.story.expect("one quote sent", this.delivery.sends().size() - before, 1)
					& this.story.expect("the model told the user it was sent", resumed.getAnswer().contains("sent to the customer"));
		}
		return held & this.story.expect("the model's call again was refused, not approved", outcomesOf(resumed, "send_quote"),
				List.of(Answer.REFUSED_NOT_APPROVED.kind()))
				& this.story.expect("nothing sent", this.delivery.sends().size() - before, 0)
				& this.story.expect("the model told the user the person's reason", resumed.getAnswer().contains(reason));
	}

	private RunTranscript ask(String message) {
		this.story.say("user: " + message);
		return this.story.narrate(this.agent.ask(message));
	}

	private static List<String> outcomesOf(RunTranscript run, String tool) {
		return run.getCalls().stream().filter((call) -> call.tool().equals(tool)).map(RunTranscript.ToolCall::outcome).toList();
	}

	private static String outcomes(Map<?, ?> transcript) {
		List<?> calls = (List<?>) transcript.get("calls");
		return calls.stream().map((call) -> ((Map<?, ?>) call).get("tool") + " " + ((Map<?, ?>) call).get("outcome")).toList().toString();
	}

}
