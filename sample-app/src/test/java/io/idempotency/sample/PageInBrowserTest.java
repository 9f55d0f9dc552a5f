package io.idempotency.sample;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.CallRecord;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.reconcile.Approvals;
import io.idempotency.reconcile.Settlements;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.sample.agent.Agent;
import io.idempotency.sample.external.Fault;
import io.idempotency.sample.external.QuoteDelivery;
import io.idempotency.sample.external.TicketSystem;
import io.idempotency.sample.external.Warehouse;
import io.idempotency.sample.tools.ReservationTools;
import io.idempotency.sample.web.LedgerView;
import tools.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The page in a real headless browser (Debian's {@code chromium} and {@code chromium-driver}): a message that
 * makes the model repeat a call shows the replay badge, one ledger row and one ticket; a call the reconciler
 * cannot settle appears in the operator panel and is settled there. Saves screenshots to
 * {@code target/screenshots/}.
 */
class PageInBrowserTest extends SampleAppTest {

	private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

	private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

	@LocalServerPort
	int port;

	@Autowired
	TicketSystem tickets;

	@Autowired
	LedgerView ledger;

	@Autowired
	Warehouse warehouse;

	@Autowired
	ReservationTools reservations;

	@Autowired
	Settlements settlements;

	@Autowired
	QuoteDelivery delivery;

	@Autowired
	Approvals approvals;

	private WebDriver browser;

	@BeforeEach
	void openBrowser() {
		if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
			String reason = "The page's browser test needs Debian's chromium and chromium-driver ("
					+ "apt-get install chromium chromium-driver); they are not installed";
			if (System.getenv("CI") != null) {
				throw new IllegalStateException(reason + ". CI must run it.");
			}
			System.err.println("Skipped: " + reason);
			throw new TestAbortedException(reason);
		}
		ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
			.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1500");
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
			.withLogOutput(java.io.OutputStream.nullOutputStream())
			.build();
		this.browser = new ChromeDriver(service, options);
	}

	@AfterEach
	void closeBrowser() {
		if (this.browser != null) {
			this.browser.quit();
		}
	}

	@Test
	void aRepeatedCallShowsTheReplayBadgeOneLedgerRowAndOneTicket() throws IOException {
		int ticketsBefore = this.tickets.tickets().size();
		this.browser.get("http://localhost:" + this.port + "/");
		// The page refreshes every 2 s (its runs rebuilt when they changed, its ledger each time); here, every 100 ms
		// as well, so that a test that holds an element across a rebuild fails here, often, not once in a while.
		((JavascriptExecutor) this.browser).executeScript("setInterval(refresh, 100)");
		// Every read below finds its elements again at each try; one that went stale in between is tried again.
		WebDriverWait wait = new WebDriverWait(this.browser, Duration.ofSeconds(30));
		wait.ignoring(StaleElementReferenceException.class);
		wait.withMessage(this::whatThePageShows);

		wait.until(ExpectedConditions.elementToBeClickable(By.id("message")))
			.sendKeys("open a ticket for the seal failure");
		this.browser.findElement(By.id("send")).click();

		// The newest run, read whole from one rebuild: its id once it shows the replay badge.
		String runId = wait.until((page) -> newestRunIf(List.of("executed", "replayed", "replayed_different_details")));
		String run = "#runs .run[data-run='" + runId + "']";
		assertThat(this.browser.findElements(By.cssSelector(run + " .badge[data-outcome='executed']"))).hasSize(1);

		// The model's twin in the same turn, and its repeat that rephrased the description.
		wait.until((page) -> texts(run + " .badge[data-outcome='replayed_different_details']")
			.equals(List.of("replayed, other details not applied")));
		List<LedgerView.Row> rows = this.ledger.ofRun(runId);
		assertThat(rows).hasSize(1);
		assertThat(rows.get(0).replayCount()).isEqualTo(2);
		assertThat(this.tickets.tickets()).hasSize(ticketsBefore + 1);
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("ticket-count"),
				String.valueOf(ticketsBefore + 1)));
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#ledger tbody"), runId));
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#chat .msg.assistant:last-child"),
				"already done earlier in this request"));

		// The run as a story: each call, how it was answered, what the model read; the arguments whole.
		assertThat(storyOf(wait, run)).satisfiesExactly(
				(step) -> assertThat(step).startsWith("executed | The model called open_ticket accountName")
					.contains("issue \"seal failure\"")
					.contains("| executed It ran: the tool acted once")
					.contains("| The model read: {"),
				(step) -> assertThat(step).startsWith("replayed | The model called open_ticket")
					.contains("| replayed It did not run again: the ledger answered with the first call's result.")
					.contains("| The model read: Already done earlier in this run"),
				(step) -> assertThat(step).startsWith("replayed_different_details | The model called open_ticket")
					.contains("issue \"seal failure  \"")
					.contains("the details that differ were not applied")
					.contains("| The model read: Already done earlier in this run, with other details"));
		assertThat(texts(run + " .step:first-child .arg")).containsExactly("accountName \"Henderson Industrial\"", "issue \"seal failure\"",
					"description \"The customer reports a seal failure.\"");

		// Read from the server, not kept by the browser: a reload shows the run, its story and the chat again.
		this.browser.navigate().refresh();
		wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector(run + " .step"), 3));
		assertThat(storyOf(wait, run)).hasSize(3);
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#chat"),
				"You: open a ticket for the seal failure"));
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#chat .msg.assistant:last-child"),
				"already done earlier in this request"));

		screenshot("page.png");
	}

	@Test
	void aCallTheReconcilerCannotSettleIsSettledInTheOperatorPanel() throws IOException {
		this.browser.get("http://localhost:" + this.port + "/");
		// As above: rebuilt every 100 ms, so that an element held across a rebuild fails here.
		((JavascriptExecutor) this.browser).executeScript("setInterval(refresh, 100)");
		WebDriverWait wait = new WebDriverWait(this.browser, Duration.ofSeconds(30));
		wait.ignoring(StaleElementReferenceException.class);
		wait.withMessage(this::whatThePageShows);
		int reservationsBefore = this.warehouse.reservations().size();

		// The scenario, as a person plays it on the page: the warehouse times out after reserving.
		wait.until((page) -> {
			new Select(page.findElement(By.id("fault-warehouse"))).selectByValue("TIMEOUT_AFTER_EFFECT");
			return this.warehouse.armed() == Fault.TIMEOUT_AFTER_EFFECT;
		});
		wait.until(ExpectedConditions.elementToBeClickable(By.id("message")))
			.sendKeys("reserve 50 of SKU-4411 for Henderson Industrial");
		this.browser.findElement(By.id("send")).click();

		// The model read the timeout, then "in progress" for its repeat.
		String runId = wait.until((page) -> newestRunIf(List.of("error", "in_progress")));
		assertThat(this.warehouse.reservations()).hasSize(reservationsBefore + 1);

		// The reconciler tries it max-attempts times, a few seconds apart, then hands it to a human.
		String awaiting = "#awaiting tr.awaiting-row[data-run='" + runId + "']";
		String key = new WebDriverWait(this.browser, Duration.ofSeconds(90))
			.ignoring(StaleElementReferenceException.class)
			.withMessage(this::whatThePageShows)
			.until((page) -> page.findElements(By.cssSelector(awaiting))
				.stream()
				.findFirst()
				.map((row) -> row.getDomAttribute("data-key"))
				.orElse(null));
		String row = "#awaiting tr.awaiting-row[data-key='" + key + "']";
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(row), "reserve_stock"));
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(row), "SKU-4411"));
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(row + " td:nth-child(5)"), "3"));

		// The operator looks in the warehouse: the call's reference is on a reservation.
		List<Warehouse.Reservation> found = this.warehouse
			.withReference(new IdempotencyKey(key).externalReference("whs"));
		assertThat(found).hasSize(1);
		Warehouse.Reservation reservation = found.get(0);

		wait.until((page) -> {
			page.findElement(By.cssSelector(row + " button.select-call")).click();
			return key.equals(page.findElement(By.id("settle-key")).getDomProperty("value"));
		});
		this.browser.findElement(By.id("operator")).sendKeys("ops-anna");
		this.browser.findElement(By.id("settle-result")).sendKeys(new JsonMapper().writeValueAsString(reservation));

		// No reason: refused, and the page says why.
		this.browser.findElement(By.id("settle-succeeded")).click();
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#settle-message.refused"),
				"is refused, nothing was written: say why the call is settled so"));
		assertThat(this.settlements.find(new IdempotencyKey(key)).orElseThrow().entry().isUnsettled()).isTrue();

		this.browser.findElement(By.id("settle-reason")).sendKeys(reservation.id() + " is in the warehouse");
		this.browser.findElement(By.id("settle-succeeded")).click();
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#settle-message.settled"),
				"reserve_stock of run " + runId + " settled as succeeded by ops-anna"));

		// The panel no longer lists it; the run and the ledger row show it settled by hand.
		wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector(row), 0));
		String settledRun = "#runs .run[data-run='" + runId + "']";
		wait.until((page) -> texts(settledRun + " .badge[data-outcome='settled by hand']").contains("settled by hand"));
		wait.until((page) -> texts(settledRun).stream()
			.anyMatch((text) -> text.contains("ops-anna settled the call as succeeded: " + reservation.id() + " is in the warehouse")));
		wait.until((page) -> texts("#ledger tbody tr").stream()
			.anyMatch((ledgerRow) -> ledgerRow.contains(runId) && ledgerRow.contains("succeeded (settled by ops-anna)")));
		CallRecord settled = this.settlements.find(new IdempotencyKey(key)).orElseThrow();
		assertThat(settled.entry().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(settled.settledBy()).isEqualTo("ops-anna");

		// A repeat of the call in its run reads the settled outcome: the reservation, and no second one.
		Warehouse.Reservation repeated = RunContext.supply(new Run(runId, Agent.USER),
				() -> this.reservations.reserveStock("Henderson Industrial", "SKU-4411", 50));
		assertThat(repeated).isEqualTo(reservation);
		assertThat(this.warehouse.reservations()).hasSize(reservationsBefore + 1);
		assertThat(this.ledger.ofRun(runId)).singleElement().satisfies((ledgerRow) -> {
			assertThat(ledgerRow.settledBy()).isEqualTo("ops-anna");
			assertThat(ledgerRow.reconciled()).isFalse();
		});

		screenshot("operator-panel.png");
	}

	@Test
	void aQuoteOverTheThresholdApprovedOnThePanelIsSentOnceWhenItsRunIsResumed() throws IOException {
		decideOnThePanelAndResume(true, "the account's volume agreement covers it");
		screenshot("approval.png");
	}

	@Test
	void aQuoteOverTheThresholdRejectedOnThePanelIsNeverSentAndItsResumedRunIsToldWhy() throws IOException {
		decideOnThePanelAndResume(false, "a discount this size needs the sales director");
	}

	/**
	 * A quote over 10,000, drafted and sent in one message: the model is told the send awaits approval and says
	 * so; a person decides in the panel (refused first, with no reason); the run, resumed from the page, sends
	 * the quote once, or is told the person's reason and sends nothing.
	 */
	private void decideOnThePanelAndResume(boolean approve, String reason) {
		this.browser.get("http://localhost:" + this.port + "/");
		((JavascriptExecutor) this.browser).executeScript("setInterval(refresh, 100)");
		WebDriverWait wait = new WebDriverWait(this.browser, Duration.ofSeconds(30));
		wait.ignoring(StaleElementReferenceException.class);
		wait.withMessage(this::whatThePageShows);
		int sendsBefore = this.delivery.sends().size();

		wait.until(ExpectedConditions.elementToBeClickable(By.id("message")))
			.sendKeys("quote 1000 of SKU-4411 for Henderson Industrial and send it");
		this.browser.findElement(By.id("send")).click();

		// check_inventory, draft_quote, then send_quote of the quote drafted: it awaits approval, nothing is sent.
		String runId = wait.until((page) -> newestRunIf(List.of("read", "executed", "awaiting_approval")));
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#chat .msg.assistant:last-child"),
				"Waiting for approval: a person must approve this before it is done"));
		assertThat(this.delivery.sends()).hasSize(sendsBefore);

		// The panel lists the call: tool, run, user, arguments, why.
		String row = "#approvals tr.approval-row[data-run='" + runId + "']";
		String key = wait.until((page) -> page.findElements(By.cssSelector(row))
			.stream()
			.findFirst()
			.map((found) -> found.getDomAttribute("data-key"))
			.orElse(null));
		wait.until((page) -> texts(row).stream()
			.anyMatch((text) -> text.contains("send_quote") && text.contains(Agent.USER) && text.contains("quoteId")
					&& text.contains("totals 18,400, over the 10,000 a rep may send without approval")));

		// No reason: refused, and the page says why; the call still waits.
		String decide = row + " button[data-decide='" + (approve ? "approve" : "reject") + "']";
		this.browser.findElement(By.id("approver")).sendKeys("ops-anna");
		wait.until((page) -> {
			page.findElement(By.cssSelector(decide)).click();
			return true;
		});
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#approval-message.refused"),
				"say why the call is " + (approve ? "approved" : "rejected")));
		assertThat(this.approvals.find(new IdempotencyKey(key)).orElseThrow().isAwaiting()).isTrue();

		this.browser.findElement(By.id("approval-reason")).sendKeys(reason);
		wait.until((page) -> {
			page.findElement(By.cssSelector(decide)).click();
			return true;
		});
		String decision = approve ? "approved" : "rejected";
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#approval-message.settled"),
				"send_quote of run " + runId + " " + decision + " by ops-anna"));
		wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector(row), 0));

		// The decision's event left the run to resume, for its user: resumed from the page.
		String resumable = "#resumable li[data-run='" + runId + "']";
		wait.until((page) -> texts(resumable).stream()
			.anyMatch((text) -> text.contains("(for " + Agent.USER + ") was " + decision + " by ops-anna: " + reason)));
		wait.until((page) -> {
			page.findElement(By.cssSelector(resumable + " button.resume")).click();
			return true;
		});

		// The model calls send_quote again, in the same run: sent once, or refused with the reason.
		String resumed = wait.until((page) -> newestRunIf(List.of(approve ? "executed" : "refused_not_approved")));
		assertThat(resumed).isEqualTo(runId);
		wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector(resumable), 0));
		if (approve) {
			wait.until(ExpectedConditions.textToBePresentInElementLocated(
					By.cssSelector("#chat .msg.assistant:last-child"), "sent to the customer"));
			wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("send-count"),
					String.valueOf(sendsBefore + 1)));
			assertThat(this.delivery.sends()).hasSize(sendsBefore + 1);
		}
		else {
			wait.until(ExpectedConditions.textToBePresentInElementLocated(
					By.cssSelector("#chat .msg.assistant:last-child"), "a person did not approve this action (" + reason + ")"));
			assertThat(this.delivery.sends()).hasSize(sendsBefore);
		}
		assertThat(this.approvals.find(new IdempotencyKey(key)).orElseThrow().entry().status())
			.isEqualTo(approve ? LedgerStatus.SUCCEEDED : LedgerStatus.REJECTED);
	}

	/**
	 * Each step of a run's story, "outcome | called | answered | read", read in one script: the page rebuilds its
	 * runs every 100 ms here, faster than a step can be read element by element.
	 */
	private List<String> storyOf(WebDriverWait wait, String run) {
		return wait.until((page) -> texts(run + " .step:not(.afterwards)", "(step) => step.dataset.outcome + ' | '"
				+ " + step.querySelector('.called').innerText + ' | ' + step.querySelector('.answered').innerText"
				+ " + ' | ' + step.querySelector('.read').innerText"));
	}

	/** The newest run's id once its badges are these, read in one script (see {@link #storyOf}); else null. */
	private String newestRunIf(List<String> outcomes) {
		List<String> newest = texts("#runs .run:first-child",
				"(run) => run.dataset.run + ' ' + [...run.querySelectorAll('.badge')].map((badge) => badge.dataset.outcome).join(',')");
		if (newest.isEmpty()) {
			return null;
		}
		String[] run = newest.get(0).split(" ", 2);
		return run[1].equals(String.join(",", outcomes)) ? run[0] : null;
	}

	private List<String> texts(String selector) {
		return texts(selector, "(element) => element.innerText");
	}

	/** The text of each element the selector finds, as the function reads it, from one rebuild of the page. */
	@SuppressWarnings("unchecked")
	private List<String> texts(String selector, String text) {
		return (List<String>) ((JavascriptExecutor) this.browser).executeScript(
				"return [...document.querySelectorAll(arguments[0])].map(" + text + ")", selector);
	}

	/** A wait that times out says what the chat and the newest run showed, and what the warehouse is armed with. */
	private String whatThePageShows() {
		StringBuilder shown = new StringBuilder("the warehouse is armed with ").append(this.warehouse.armed());
		for (String part : List.of("#chat", "#runs .run:first-child", "#settle-message", "#approval-message")) {
			try {
				shown.append("; ").append(part).append(" shows: ").append(this.browser.findElement(By.cssSelector(part)).getText());
			}
			catch (RuntimeException ex) {
				shown.append("; ").append(part).append(" could not be read: ").append(ex.getMessage().lines().findFirst().orElse(""));
			}
		}
		return shown.toString();
	}

	private void screenshot(String name) throws IOException {
		File screenshot = ((TakesScreenshot) this.browser).getScreenshotAs(OutputType.FILE);
		Path saved = Path.of("target", "screenshots", name);
		Files.createDirectories(saved.getParent());
		Files.copy(screenshot.toPath(), saved, StandardCopyOption.REPLACE_EXISTING);
	}

}
