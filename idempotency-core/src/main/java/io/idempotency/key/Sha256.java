package io.idempotency.key;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 as lowercase hex: the one digest keys and request keys are made of. */
final class Sha256 {

	private static final HexFormat HEX = HexFormat.of();

	/** Copied for each digest, rather than looked up among the providers each time; a copy shares no state. */
	private static final MessageDigest PROTOTYPE = digest();

	private Sha256() {
	}

	/** The SHA-256 of the bytes, as 64 lowercase hex characters. */
	static String hex(byte[] bytes) {
		return HEX.formatHex(copy().digest(bytes));
	}

	private static MessageDigest copy() {
		try {
			return (MessageDigest) PROTOTYPE.clone();
		}
		catch (CloneNotSupportedException ex) {
			// A provider whose digests cannot be copied: looked up each time.
			return digest();
		}
	}

	private static MessageDigest digest() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform provides SHA-256", ex);
		}
	}

}
