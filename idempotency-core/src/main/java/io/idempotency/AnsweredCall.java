package io.idempotency;

/**
 * An exception the library ends a call with instead of executing it, or executing it again: a repeat
 * answered from an earlier call of its run, or a call refused. It names its {@link Answer}, so that an
 * integration tells the model that answer's kind, with the exception's message.
 */
public interface AnsweredCall {

	/** How the call was answered. */
	Answer answer();

}
