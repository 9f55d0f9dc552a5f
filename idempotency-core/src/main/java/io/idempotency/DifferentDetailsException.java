package io.idempotency;

import java.util.List;

/**
 * Thrown instead of executing a repeat with the key of an earlier call but other details, for a tool that
 * refuses those ({@link DifferentDetails#REFUSE}). The message is written for a model to read.
 */
public class DifferentDetailsException extends RuntimeException implements AnsweredCall {

	private static final long serialVersionUID = 1L;

	private final String tool;

	private final List<String> differentDetails;

	public DifferentDetailsException(String tool, List<String> differentDetails) {
		super(Answer.differentDetailsRefused(differentDetails));
		this.tool = tool;
		this.differentDetails = List.copyOf(differentDetails);
	}

	/** The tool whose call was refused. */
	public String tool() {
		return this.tool;
	}

	/** The paths of the arguments that differ from the earlier call's. */
	public List<String> differentDetails() {
		return this.differentDetails;
	}

	@Override
	public Answer answer() {
		return Answer.REFUSED_DIFFERENT_DETAILS;
	}

}
