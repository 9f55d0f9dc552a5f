package io.idempotency.sample.agent;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.sample.tools.InventoryTools;
import io.idempotency.sample.tools.QuoteTools;
import io.idempotency.sample.tools.ReservationTools;
import io.idempotency.sample.tools.SendQuoteTools;
import io.idempotency.sample.tools.TicketTools;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.Message;
import org.springframework.stereotype.Service;

/**
 * The inside-sales assistant: Spring AI's {@code ChatClient} with its real tool loop, made from the
 * auto-configured builder, so that each user message is a run of its own (the starter's run-per-prompt
 * advisor) unless the HTTP request that carries it names one with {@code Idempotency-Key}.
 */
@Service
public class Agent {

	/** The sales rep the assistant acts for: replays never cross users. */
	public static final String USER = "rep-7";

	private static final int SHOWN = 50;

	/** What a resumed run is asked. */
	static final String CARRY_ON = "Carry on: a person decided on what awaited their approval.";

	private final ChatClient chat;

	private final List<Object> tools;

	private final SendQuoteTools sends;

	private final Set<String> idempotentTools;

	private final AtomicBoolean idempotencyOff = new AtomicBoolean();

	private final RunStore runs;

	private final Clock clock;

	Agent(ChatClient.Builder chat, InventoryTools inventory,
			QuoteTools quotes, TicketTools tickets, ReservationTools reservations, SendQuoteTools sends, RunStore runs,
			Clock clock) {
		this.clock = clock;
		this.runs = runs;
		// The tools marked @IdempotentTool; check_inventory is a read.
		this.idempotentTools = Set.of("draft_quote", "open_ticket", "reserve_stock", "send_quote");
		this.chat = chat.defaultSystem("You are an inside-sales assistant. Use the tools to act; report each"
				+ " action once.")
			.defaultAdvisors(new TranscriptAdvisor(() -> this.idempotentTools))
			.build();
		this.tools = List.of(inventory, quotes, tickets, reservations);
		this.sends = sends;
	}

	/** Sends one user message to the agent: one run. */
	public RunTranscript ask(String message) {
		if (message == null || message.isBlank()) {
			throw new IllegalArgumentException("A message to the agent must not be blank");
		}
		RunTranscript transcript = new RunTranscript(message.trim(), this.idempotencyOff.get(), this.clock.instant());
		String answer = this.chat.prompt()
			.user(message.trim())
			.tools(tools().toArray())
			.tools(this.idempotencyOff.get() ? this.sends.sendQuoteWithoutIdempotency() : this.sends.sendQuote())
			.toolContext(Map.of("userId", USER))
			.advisors((advisors) -> advisors.param(RunTranscript.KEY, transcript))
			.call()
			.content();
		transcript.answered(answer);
		this.runs.save(transcript);
		return transcript;
	}

	/**
	 * Resumes a run once a person decided on a call of it that awaited approval: binds the run (its id and
	 * user) with {@link RunContext}, gives the model the run's conversation so far, and asks it to carry on. The
	 * model calls again what awaited approval, with the same arguments: an approved call executes once, a
	 * rejected or expired one is refused with the person's reason.
	 * @param runId the run, as the decision's event or the listing names it
	 * @param userId the user the run acts for, likewise
	 */
	public RunTranscript resume(String runId, String userId) {
		List<RunTranscript> earlier = this.runs.ofRun(runId);
		if (earlier.isEmpty()) {
			throw new IllegalArgumentException("No run " + runId + " to resume: the agent has no conversation of it");
		}
		List<Message> conversation = earlier.stream().flatMap((run) -> run.conversation().stream()).toList();
		RunTranscript transcript = new RunTranscript(CARRY_ON, false, this.clock.instant());
		String answer = RunContext.supply(new Run(runId, userId), () -> this.chat.prompt()
			.messages(conversation)
			.user(CARRY_ON)
			.tools(this.tools.toArray())
			.tools(this.sends.sendQuote())
			.toolContext(Map.of("userId", userId))
			.advisors((advisors) -> advisors.param(RunTranscript.KEY, transcript))
			.call()
			.content());
		transcript.answered(answer);
		this.runs.save(transcript);
		return transcript;
	}

	/** The latest runs, newest first, as the sample's database keeps them: across reloads and restarts. */
	public List<RunTranscript> transcripts() {
		return this.runs.latest(SHOWN);
	}

	/**
	 * Turns idempotency off for the next runs, to show what it prevents: the model's calls then reach the
	 * tools' own objects, past the idempotency advice, and the plain {@code send_quote} callback, as they
	 * would without the library.
	 */
	public void idempotencyOff(boolean off) {
		this.idempotencyOff.set(off);
	}

	public boolean idempotencyOff() {
		return this.idempotencyOff.get();
	}

	private List<Object> tools() {
		if (!this.idempotencyOff.get()) {
			return this.tools;
		}
		return this.tools.stream().map((bean) -> {
			Object target = AopProxyUtils.getSingletonTarget(bean);
			return (target != null) ? target : bean;
		}).toList();
	}

}
