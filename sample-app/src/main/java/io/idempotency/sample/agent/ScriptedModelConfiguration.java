package io.idempotency.sample.agent;

import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The sample's own deterministic model, unless a provider's starter (OpenAI, Ollama: the {@code openai}
 * and {@code ollama} Maven profiles) has configured a real one.
 */
@AutoConfiguration(before = ChatClientAutoConfiguration.class,
		afterName = { "org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration",
				"org.springframework.ai.model.ollama.autoconfigure.OllamaChatAutoConfiguration" })
public class ScriptedModelConfiguration {

	@Bean
	@ConditionalOnMissingBean(ChatModel.class)
	ScriptedChatModel scriptedChatModel() {
		return new ScriptedChatModel();
	}

}
