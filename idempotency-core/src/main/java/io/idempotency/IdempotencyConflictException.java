package io.idempotency;

/**
 * A call whose key is held by another user's call. Nothing was executed and nothing of the other call is
 * revealed. Two users sharing a run id is a bug in the application (or an attack).
 */
public class IdempotencyConflictException extends RuntimeException implements AnsweredCall {

	private static final long serialVersionUID = 1L;

	public IdempotencyConflictException(String tool) {
		super("This action cannot be performed: its idempotency key belongs to another user's run. Nothing was done.");
	}

	@Override
	public Answer answer() {
		return Answer.REFUSED_CONFLICT;
	}

}
