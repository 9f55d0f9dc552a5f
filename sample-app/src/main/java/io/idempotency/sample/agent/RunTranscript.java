package io.idempotency.sample.agent;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.idempotency.Answer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

/**
 * One user request to the agent, as the page shows it: its run, each tool call the model made with the
 * exact text the model then read for it, and the answer.
 */
public final class RunTranscript {

	/** The key of the transcript among the advisor parameters of a {@code ChatClient} call. */
	static final String KEY = RunTranscript.class.getName();

	private static final JsonMapper JSON = new JsonMapper();

	/**
	 * One tool call.
	 *
	 * @param outcome what the text the model read says: {@code executed}, {@code read} (a tool that is
	 * not idempotent), {@code error}, or the library's kind ({@code replayed}, {@code in_progress},
	 * {@code previous_attempt_failed}, {@code refused_...})
	 */
	public record ToolCall(String id, String tool, String arguments, String modelRead, String outcome, int turn) {
	}

	private final String request;

	private final boolean idempotencyOff;

	private final Instant at;

	private final List<ToolCall> calls = new ArrayList<>();

	private final List<String[]> pending = new ArrayList<>();

	private volatile String runId;

	private volatile String answer;

	private int turns;

	RunTranscript(String request, boolean idempotencyOff, Instant at) {
		this.request = request;
		this.at = at;
		this.idempotencyOff = idempotencyOff;
	}

	/** A run as it was stored, once it was answered. */
	static RunTranscript restored(String runId, String request, boolean idempotencyOff, Instant at, String answer,
			List<ToolCall> calls) {
		RunTranscript run = new RunTranscript(request, idempotencyOff, at);
		run.runId = runId;
		run.answer = answer;
		run.calls.addAll(calls);
		return run;
	}

	synchronized void run(String runId) {
		if (this.runId == null) {
			this.runId = runId;
		}
	}

	/** The model asked for these calls in one turn. */
	synchronized void called(List<AssistantMessage.ToolCall> calls) {
		this.turns++;
		for (var call : calls) {
			this.pending.add(new String[] { call.id(), call.name(), call.arguments() });
		}
	}

	/** The model read this text for the call of this id. */
	synchronized void read(String callId, String text, Set<String> idempotentTools) {
		for (String[] call : this.pending) {
			if (call[0].equals(callId)) {
				this.calls.add(new ToolCall(call[0], call[1], call[2], text, outcome(call[1], text, idempotentTools), this.turns));
				this.pending.remove(call);
				return;
			}
		}
	}

	/**
	 * The conversation of this request as the model had it: the request, each turn's calls and what the model
	 * read for them, and the answer; what a resumed run gives the model, so that it carries on from there.
	 */
	synchronized List<Message> conversation() {
		List<Message> messages = new ArrayList<>();
		messages.add(new UserMessage(this.request));
		this.calls.stream().map(ToolCall::turn).distinct().sorted().forEach((turn) -> {
			List<ToolCall> ofTurn = this.calls.stream().filter((call) -> call.turn() == turn).toList();
			messages.add(AssistantMessage.builder()
				.content("")
				.toolCalls(ofTurn.stream()
					.map((call) -> new AssistantMessage.ToolCall(call.id(), "function", call.tool(), call.arguments()))
					.toList())
				.build());
			messages.add(ToolResponseMessage.builder()
				.responses(ofTurn.stream()
					.map((call) -> new ToolResponseMessage.ToolResponse(call.id(), call.tool(), call.modelRead()))
					.toList())
				.build());
		});
		if (this.answer != null) {
			messages.add(new AssistantMessage(this.answer));
		}
		return messages;
	}

	synchronized void answered(String answer) {
		this.answer = answer;
	}

	private String outcome(String tool, String text, Set<String> idempotentTools) {
		if (!idempotentTools.contains(tool) || this.idempotencyOff) {
			return idempotentTools.contains(tool) ? "executed (idempotency off)" : "read";
		}
		try {
			JsonNode read = JSON.readTree(text);
			return (read.isObject() && read.has("kind")) ? read.get("kind").asString() : Answer.EXECUTED.kind();
		}
		catch (RuntimeException ex) {
			return "error";
		}
	}

	public String getRunId() {
		return this.runId;
	}

	public String getRequest() {
		return this.request;
	}

	public boolean isIdempotencyOff() {
		return this.idempotencyOff;
	}

	public Instant getAt() {
		return this.at;
	}

	public synchronized List<ToolCall> getCalls() {
		return List.copyOf(this.calls);
	}

	public String getAnswer() {
		return this.answer;
	}

}
