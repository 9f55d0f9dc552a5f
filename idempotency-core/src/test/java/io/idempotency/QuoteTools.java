package io.idempotency;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.idempotency.key.IdempotencyKey;
import org.springframework.ai.chat.model.ToolContext;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/** Tools whose effects land in a real table, so that a test counts effects, not calls. */
public class QuoteTools {

	public record Quote(long id, String accountName, String sku, int quantity, String reference) {
	}

	private final JdbcTemplate jdbc;

	private final AtomicInteger sendAttempts = new AtomicInteger();

	private final AtomicInteger reconciliations = new AtomicInteger();

	public QuoteTools(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/** How often send_quote's body ran (a method: a class-based proxy has no state of its own). */
	public int sendAttempts() {
		return this.sendAttempts.get();
	}

	public int quotes() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM quotes", Integer.class);
	}

	private Quote insert(String accountName, String sku, int quantity) {
		String reference = IdempotentInvocation.current().key().externalReference("q");
		this.jdbc.update("INSERT INTO quotes (account_name, sku, quantity, reference) VALUES (?, ?, ?, ?)", accountName,
				sku, quantity, reference);
		return findByReference(reference).orElseThrow();
	}

	private Optional<Quote> findByReference(String reference) {
		return this.jdbc
			.query("SELECT id, account_name, sku, quantity, reference FROM quotes WHERE reference = ?",
					(row, n) -> new Quote(row.getLong(1), row.getString(2), row.getString(3), row.getInt(4),
							row.getString(5)),
					reference)
			.stream()
			.findFirst();
	}

	@IdempotentTool(name = "draft_quote", reconcile = "findQuote")
	public Quote draftQuote(String accountName, String sku, int quantity) {
		return insert(accountName, sku.strip(), quantity);
	}

	Reconciliation<Quote> findQuote(IdempotencyKey key, String accountName) {
		this.reconciliations.incrementAndGet();
		return Reconciliation.of(findByReference(key.externalReference("q")));
	}

	public int reconciliations() {
		return this.reconciliations.get();
	}

	/** Takes effect, then loses the ledger (its table renamed away) before the outcome can be recorded. */
	@IdempotentTool(name = "outage_quote", reconcile = "findQuote")
	public Quote outageQuote(String accountName, String ledgerTable) {
		Quote quote = insert(accountName, "OUTAGE", 1);
		this.jdbc.execute("ALTER TABLE " + ledgerTable + " RENAME TO " + ledgerTable + "_away");
		return quote;
	}

	@IdempotentTool(name = "unreconcilable", reconcile = "askTheDownSystem")
	public String unreconcilable(String accountName) {
		return accountName;
	}

	Reconciliation<String> askTheDownSystem(IdempotencyKey key) {
		throw new IllegalStateException("the ticket system is down");
	}

	@IdempotentTool(name = "draft_quotes", reconcile = "findQuotes")
	public List<Quote> draftQuotes(String accountName, Map<String, Integer> quantities) {
		return quantities.entrySet().stream().map((e) -> insert(accountName + "/" + e.getKey(), e.getKey(), e.getValue())).toList();
	}

	Reconciliation<List<Quote>> findQuotes(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

	@IdempotentTool(name = "maybe_quote", reconcile = "findMaybe")
	public Optional<Quote> maybeQuote(String accountName, boolean create) {
		return create ? Optional.of(insert(accountName, "SKU-1", 1)) : Optional.empty();
	}

	Reconciliation<Optional<Quote>> findMaybe(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

	@IdempotentTool(name = "quote_envelope", reconcile = "findEnvelope")
	public ToolResult<List<Quote>> quoteEnvelope(String accountName, boolean fail) {
		if (fail) {
			throw new IllegalArgumentException("account " + accountName + " is closed");
		}
		return ToolResult.of(List.of(insert(accountName, "SKU-2", 2)));
	}

	Reconciliation<List<Quote>> findEnvelope(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

	@IdempotentTool(name = "send_quote", reconcile = "findSent", unknownOn = IllegalStateException.class)
	public void sendQuote(String accountName, String failure) throws IOException {
		this.sendAttempts.incrementAndGet();
		switch (failure) {
			case "timeout" -> throw new SocketTimeoutException("Read timed out");
			case "rejected" -> throw new IllegalArgumentException("rejected by the mail server");
			case "ambiguous" -> throw new IllegalStateException("connection reset after send");
			case "interrupted" -> {
				// Sent, then interrupted while it waited for the server's answer: as careful code does, the
				// interrupt is kept for the caller, and the wait's exception wrapped.
				insert(accountName, "SENT", 0);
				Thread.currentThread().interrupt();
				throw new RuntimeException("interrupted while waiting for the mail server", new InterruptedException());
			}
			case "cancelled" -> {
				insert(accountName, "SENT", 0);
				throw new java.util.concurrent.CancellationException("the delivery report was cancelled");
			}
			default -> insert(accountName, "SENT", 0);
		}
	}

	Reconciliation<Void> findSent(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

	/** The amounts of transfers made, exactly as the bank received them. */
	private final Set<java.math.BigDecimal> transfers = ConcurrentHashMap.newKeySet();

	/** Makes a transfer, then times out: only the reconciler can tell, by the exact amount. */
	@IdempotentTool(name = "transfer", reconcile = "findTransfer")
	public String transfer(String accountName, java.math.BigDecimal amount, long units) throws SocketTimeoutException {
		this.transfers.add(amount);
		throw new SocketTimeoutException("Read timed out after the bank answered");
	}

	/** Looks the transfer up as a bank does: by the exact amount, to the last digit. */
	Reconciliation<String> findTransfer(String accountName, java.math.BigDecimal amount, long units) {
		return this.transfers.stream().anyMatch((made) -> made.compareTo(amount) == 0)
				? Reconciliation.found(accountName + ":" + amount.toPlainString() + ":" + units)
				: Reconciliation.notFound();
	}

	/** A payment as a model sends it: its amount is read from the request and never written back. */
	public record Payment(String accountName, @com.fasterxml.jackson.annotation.JsonProperty(
			access = com.fasterxml.jackson.annotation.JsonProperty.Access.WRITE_ONLY) java.math.BigDecimal amount) {
	}

	private final AtomicInteger payments = new AtomicInteger();

	public int payments() {
		return this.payments.get();
	}

	/** Refuses amounts above the account's limit, a definite failure; pays others. */
	@IdempotentTool(name = "pay", reconcile = "findPayment")
	public String pay(Payment payment) {
		if (payment.amount().compareTo(java.math.BigDecimal.valueOf(500)) > 0) {
			throw new IllegalArgumentException("amount " + payment.amount() + " is above the limit");
		}
		return "paid " + payment.amount() + " #" + this.payments.incrementAndGet();
	}

	Reconciliation<String> findPayment(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

	private final AtomicInteger exports = new AtomicInteger();

	public int exports() {
		return this.exports.get();
	}

	/** Exports a report of that many KiB of text: its result may be larger than the ledger stores. */
	@IdempotentTool(name = "export_text", reconcile = "findText")
	public String exportText(String accountName, int kibibytes) {
		this.exports.incrementAndGet();
		return "x".repeat(kibibytes * 1024);
	}

	Reconciliation<String> findText(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

	/** Places an order through a gateway that stops waiting (504) while the upstream goes on and places it. */
	@IdempotentTool(name = "place_order", reconcile = "findOrder")
	public String placeOrder(String accountName, String sku) {
		insert(accountName, sku, 1);
		throw org.springframework.web.client.HttpServerErrorException.create(
				org.springframework.http.HttpStatus.GATEWAY_TIMEOUT, "Gateway Timeout",
				org.springframework.http.HttpHeaders.EMPTY, new byte[0], null);
	}

	Reconciliation<String> findOrder(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

	@IdempotentTool(name = "quote_with_context", reconcile = "findQuote")
	public Quote quoteWithContext(String accountName, ToolContext toolContext) {
		return insert(accountName, "CTX", 1);
	}

	@IdempotentTool(name = "record_note", transactional = true)
	public Quote recordNote(String accountName, boolean fail) {
		Quote quote = insert(accountName, "NOTE", 1);
		if (fail) {
			throw new IllegalStateException("failed after the write");
		}
		return quote;
	}

	/** As record_note, keyed on the account only, refusing a repeat whose note differs. */
	@IdempotentTool(name = "record_strict_note", transactional = true, keyExcludes = "note",
			onDifferentDetails = DifferentDetails.REFUSE)
	public Quote recordStrictNote(String accountName, String note) {
		return insert(accountName, "STRICT_NOTE", 1);
	}

	/** Lets a test hold {@link #slowNote} between its write and its commit. */
	static volatile java.util.concurrent.CountDownLatch slowNoteWritten = new java.util.concurrent.CountDownLatch(0);

	static volatile java.util.concurrent.CountDownLatch slowNoteRelease = new java.util.concurrent.CountDownLatch(0);

	/** Writes, then waits to be released before its transaction commits: a slow transactional tool. */
	@IdempotentTool(name = "slow_note", transactional = true)
	public Quote slowNote(String accountName) throws InterruptedException {
		Quote quote = insert(accountName, "SLOW", 1);
		slowNoteWritten.countDown();
		if (!slowNoteRelease.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
			throw new IllegalStateException("slow_note was never released");
		}
		return quote;
	}

	/** A case keyed on the account and the issue: a model may rephrase its description on a repeat. */
	@IdempotentTool(name = "open_case", reconcile = "findQuote", keyArguments = { "accountName", "issue" })
	public Quote openCase(String accountName, String issue, String description) {
		return insert(accountName, "CASE", 1);
	}

	/** As open_case, keyed on all but the description, and refusing a repeat whose details differ. */
	@IdempotentTool(name = "open_strict_case", reconcile = "findQuote", keyExcludes = "description",
			onDifferentDetails = DifferentDetails.REFUSE)
	public ToolResult<Quote> openStrictCase(String accountName, String issue, String description) {
		return ToolResult.of(insert(accountName, "STRICT", 1));
	}

	/** A case as a record, keyed on two of its members. */
	public record Case(String account, String issue, String description) {
	}

	@IdempotentTool(name = "file_case", reconcile = "findCase", keyArguments = { "request.account", "request.issue" })
	public ToolResult<Quote> fileCase(Case request) {
		return ToolResult.of(insert(request.account(), "FILED", 1));
	}

	Reconciliation<Quote> findCase(IdempotencyKey key) {
		return Reconciliation.of(findByReference(key.externalReference("q")));
	}

	/** Holds twin_quote's first call until the test has seen its repeats find it running. */
	static volatile java.util.concurrent.CountDownLatch twinRelease = new java.util.concurrent.CountDownLatch(0);

	/** A call whose repeats wait up to 30 seconds for its outcome; it fails, after its hold, when told to. */
	@IdempotentTool(name = "twin_quote", reconcile = "findQuote", waitForRunning = "30s")
	public Quote twinQuote(String accountName, boolean fail) throws InterruptedException {
		if (!twinRelease.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
			throw new IllegalStateException("twin_quote was never released");
		}
		if (fail) {
			throw new IllegalArgumentException("no such account: " + accountName);
		}
		return insert(accountName, "TWIN", 1);
	}

	/** Holds impatient_quote's call until the test releases it. */
	static volatile java.util.concurrent.CountDownLatch impatientRelease = new java.util.concurrent.CountDownLatch(0);

	/** A call whose repeats wait 100 ms at most for its outcome. */
	@IdempotentTool(name = "impatient_quote", reconcile = "findQuote", waitForRunning = "100ms")
	public Quote impatientQuote(String accountName) throws InterruptedException {
		if (!impatientRelease.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
			throw new IllegalStateException("impatient_quote was never released");
		}
		return insert(accountName, "IMPATIENT", 1);
	}

	@Transactional
	@IdempotentTool(name = "quote_in_transaction", reconcile = "findQuote")
	public Quote quoteInTransaction(String accountName, boolean fail) {
		Quote quote = insert(accountName, "TX", 1);
		if (fail) {
			throw new IllegalArgumentException("rolled back");
		}
		return quote;
	}

	/** A ticket request as a model sends it. */
	public record Ticket(String accountName, String issue) {
	}

	/** The issues of opened tickets, exactly as the ticket system received them. */
	private final Set<String> openedIssues = ConcurrentHashMap.newKeySet();

	/** Opens a ticket, then times out: the outcome is unknown, and only the reconciler can tell. */
	@IdempotentTool(name = "open_ticket", reconcile = "findTicket")
	public String openTicket(Ticket ticket) throws SocketTimeoutException {
		this.openedIssues.add(ticket.issue());
		throw new SocketTimeoutException("Read timed out after the ticket system answered");
	}

	/** Looks the ticket up exactly as it was opened, as a ticket system's search does. */
	Reconciliation<String> findTicket(Ticket ticket) {
		return this.openedIssues.contains(ticket.issue()) ? Reconciliation.found("T-" + ticket.issue().strip())
				: Reconciliation.notFound();
	}

	@IdempotentTool(name = "broken_reconcile", reconcile = "crashWhileReconciling")
	public String brokenReconcile(String accountName) {
		return accountName;
	}

	Reconciliation<String> crashWhileReconciling(IdempotencyKey key) {
		throw new NoClassDefFoundError("com/example/tickets/TicketClient");
	}

	/** Charges an account; the payment API refuses, quoting the request, API key included. */
	@IdempotentTool(name = "charge", reconcile = "findCharge")
	public String charge(String accountName, String apiKey) {
		throw new IllegalArgumentException("POST https://payments.example/charges?api_key=" + apiKey + " was refused");
	}

	Reconciliation<String> findCharge(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

	/** A result Jackson cannot write: its accessor fails. */
	public record Receipt(String number) {

		@Override
		public String number() {
			throw new IllegalStateException("the receipt is not printable");
		}

	}

	private final AtomicInteger receipts = new AtomicInteger();

	public int receipts() {
		return this.receipts.get();
	}

	@IdempotentTool(name = "issue_receipt", reconcile = "findReceipt")
	public Receipt issueReceipt(String accountName) {
		this.receipts.incrementAndGet();
		return new Receipt(accountName);
	}

	@IdempotentTool(name = "issue_receipt_envelope", reconcile = "findReceipt")
	public ToolResult<Receipt> issueReceiptEnvelope(String accountName) {
		this.receipts.incrementAndGet();
		return ToolResult.of(new Receipt(accountName));
	}

	Reconciliation<Receipt> findReceipt(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

}
