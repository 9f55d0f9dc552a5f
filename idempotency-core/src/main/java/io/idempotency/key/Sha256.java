package io.idempotency.key;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 as lowercase hex, without a provider lookup per call: each digest is a copy of a prototype. */
final class Sha256 {

	private static final HexFormat HEX = HexFormat.of();

	private static final MessageDigest PROTOTYPE = newDigest();

	private Sha256() {
	}

	/** The SHA-256 of the bytes, as 64 lowercase hex characters. */
	static String hex(byte[] bytes) {
		return HEX.formatHex(digest().digest(bytes));
	}

	private static MessageDigest digest() {
		try {
			return (MessageDigest) PROTOTYPE.clone();
		}
		catch (CloneNotSupportedException ex) {
			// A provider whose digest cannot be copied: look one up per call instead.
			return newDigest();
		}
	}

	private static MessageDigest newDigest() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform provides SHA-256", ex);
		}
	}

}
