package io.idempotency.sample.agent;

import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import io.idempotency.run.RunContext;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;

/**
 * Writes the transcript of a run as Spring AI's tool loop goes: it sits inside the loop (after
 * {@code ToolCallingAdvisor}), so it sees each request to the model, whose last message holds what the
 * model reads for the calls of the previous turn, and each response, which holds the next calls.
 */
class TranscriptAdvisor implements CallAdvisor {

	private final Supplier<Set<String>> idempotentTools;

	TranscriptAdvisor(Supplier<Set<String>> idempotentTools) {
		this.idempotentTools = idempotentTools;
	}

	@Override
	public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
		RunTranscript transcript = (RunTranscript) request.context().get(RunTranscript.KEY);
		if (transcript == null) {
			return chain.nextCall(request);
		}
		RunContext.current().ifPresent((run) -> transcript.run(run.runId()));
		List<Message> messages = request.prompt().getInstructions();
		if (!messages.isEmpty() && messages.get(messages.size() - 1) instanceof ToolResponseMessage responses) {
			for (ToolResponseMessage.ToolResponse response : responses.getResponses()) {
				transcript.read(response.id(), response.responseData(), this.idempotentTools.get());
			}
		}
		ChatClientResponse response = chain.nextCall(request);
		AssistantMessage output = response.chatResponse().getResult().getOutput();
		if (output.hasToolCalls()) {
			transcript.called(output.getToolCalls());
		}
		else {
			transcript.answered(output.getText());
		}
		return response;
	}

	@Override
	public String getName() {
		return "transcript";
	}

	@Override
	public int getOrder() {
		return 0;
	}

}
