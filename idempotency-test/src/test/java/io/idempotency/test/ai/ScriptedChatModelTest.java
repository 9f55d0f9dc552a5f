package io.idempotency.test.ai;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.ToolResponseMessage.ToolResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;

import static io.idempotency.test.ai.ScriptedChatModel.toolCall;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The scripted model drives Spring AI's own tool loop (a {@code ChatClient} and its tool calling),
 * and refuses, with a message that says what is wrong, each way a scripted test passes without running the
 * tools it meant to.
 */
class ScriptedChatModelTest {

	private final ScriptedChatModel model = new ScriptedChatModel();

	private final Desk desk = new Desk();

	@Test
	void eachScriptedTurnRunsItsToolCallsThroughTheToolLoopAndTheModelKeepsWhatItRead() {
		this.model.callsTool("open_ticket", "{\"issue\": \"leak\"}", "{\"issue\": \"noise\"}")
			.callsInOneTurn(toolCall("close_ticket", "{\"number\": 1}"), toolCall("open_ticket", "{\"issue\": \"rust\"}"))
			.answers("Three tickets opened, one closed.");

		String answer = ask(withToolLoop(), this.desk);

		assertThat(answer).isEqualTo("Three tickets opened, one closed.");
		assertThat(this.desk.actions).containsExactly("opened leak", "opened noise", "closed 1", "opened rust");
		List<ToolResponse> read = this.model.toolResponsesRead();
		assertThat(read).extracting(ToolResponse::name)
			.containsExactly("open_ticket", "open_ticket", "close_ticket", "open_ticket");
		assertThat(read).extracting(ToolResponse::responseData)
			.containsExactly("\"ticket 1\"", "\"ticket 2\"", "\"closed 1\"", "\"ticket 3\"");
		assertThat(read).extracting(ToolResponse::id).doesNotHaveDuplicates();
		assertThat(this.model.prompts()).hasSize(3);
		this.model.assertScriptUsed();
	}

	@Test
	void aStreamedRequestRunsTheSameScript() {
		this.model.callsTool("open_ticket", "{\"issue\": \"leak\"}").answers("Opened.");

		List<String> streamed = withToolLoop().prompt()
			.user("Open a ticket for the leak")
			.tools(this.desk)
			.stream()
			.content()
			.collectList()
			.block();

		assertThat(String.join("", streamed)).isEqualTo("Opened.");
		assertThat(this.desk.actions).containsExactly("opened leak");
		assertThat(this.model.toolResponsesRead()).extracting(ToolResponse::responseData).containsExactly("\"ticket 1\"");
	}

	@Test
	void aToolThePromptDoesNotOfferIsRefusedWithTheToolsItOffers() {
		this.model.callsTool("open_tiket", "{\"issue\": \"leak\"}").answers("Opened.");

		assertThatIllegalStateException().isThrownBy(() -> ask(withToolLoop(), this.desk))
			.withMessage("The model is scripted to call open_tiket, but the prompt offers only [open_ticket,"
					+ " close_ticket]: name the tool as the prompt offers it");
		assertThat(this.desk.actions).isEmpty();
	}

	@Test
	void aPromptGivenNoToolsIsToldToGiveThem() {
		this.model.callsTool("open_ticket", "{\"issue\": \"leak\"}").answers("Opened.");

		assertThatIllegalStateException()
			.isThrownBy(() -> withToolLoop().prompt().user("Open a ticket for the leak").call().content())
			.withMessageContaining("The model is scripted to call open_ticket, but the prompt offers no tools");
	}

	@Test
	void aModelCalledWithoutAToolLoopHasItsUnusedScriptReported() {
		this.model.callsTool("open_ticket", "{\"issue\": \"leak\"}").answers("Opened.");
		Prompt prompt = new Prompt("Open a ticket for the leak", ToolCallingChatOptions.builder()
			.toolCallbacks(MethodToolCallbackProvider.builder().toolObjects(this.desk).build().getToolCallbacks())
			.build());

		// Called directly, the model's tool calls reach the caller and nothing runs them.
		assertThat(this.model.call(prompt).getResult().getOutput().hasToolCalls()).isTrue();

		assertThat(this.desk.actions).isEmpty();
		assertThatExceptionOfType(AssertionError.class).isThrownBy(this.model::assertScriptUsed)
			.withMessage("1 scripted turn(s) were never asked for: answers \"Opened.\". The model was asked 1 time(s)");
		assertThatIllegalStateException().isThrownBy(() -> this.model.call(prompt))
			.withMessage("The model was asked again before its tool calls [call-1] were answered: no tool loop ran"
					+ " them. Call the model through a ChatClient, whose tool calling runs the tools of the prompt");
	}

	@Test
	void aTurnThatWasNotScriptedIsRefused() {
		this.model.callsTool("open_ticket", "{\"issue\": \"leak\"}");

		assertThatIllegalStateException().isThrownBy(() -> ask(withToolLoop(), this.desk))
			.withMessage("The model was asked for turn 2, which was not scripted: script it with callsTool(...) or"
					+ " answers(...)");
		assertThat(this.desk.actions).containsExactly("opened leak");
	}

	@Test
	void argumentsThatAreNotJsonAreRefusedWhenScripted() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.model.callsTool("open_ticket", "issue: leak"))
			.withMessage("The arguments scripted for open_ticket are not JSON: issue: leak");
		assertThatIllegalArgumentException().isThrownBy(() -> this.model.callsTool("open_ticket"))
			.withMessage("A turn that calls open_ticket needs the arguments of at least one call");
		assertThatIllegalArgumentException().isThrownBy(() -> toolCall(" ", "{}"))
			.withMessage("A scripted tool call names its tool, but the name was blank");
	}

	@Test
	void resetForgetsTheScriptAndWhatWasRead() {
		this.model.callsTool("open_ticket", "{\"issue\": \"leak\"}").answers("Opened.");
		ask(withToolLoop(), this.desk);

		this.model.reset();

		assertThat(this.model.toolResponsesRead()).isEmpty();
		assertThat(this.model.prompts()).isEmpty();
		this.model.answers("Nothing to do.");
		assertThat(ask(withToolLoop(), this.desk)).isEqualTo("Nothing to do.");
	}

	/** A ChatClient as an application builds one: its tool calling runs the tools of each prompt. */
	private ChatClient withToolLoop() {
		return ChatClient.create(this.model);
	}

	private static String ask(ChatClient client, Desk desk) {
		return client.prompt().user("Open tickets").tools(desk).call().content();
	}

	static class Desk {

		final List<String> actions = new CopyOnWriteArrayList<>();

		@Tool(name = "open_ticket", description = "Open a ticket")
		public String openTicket(String issue) {
			this.actions.add("opened " + issue);
			return "ticket " + this.actions.stream().filter((action) -> action.startsWith("opened")).count();
		}

		@Tool(name = "close_ticket", description = "Close a ticket")
		public String closeTicket(int number) {
			this.actions.add("closed " + number);
			return "closed " + number;
		}

	}

}
