package io.idempotency.sample;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;

import io.idempotency.sample.external.TicketSystem;
import io.idempotency.sample.web.LedgerView;
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
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The page in a real headless browser (Debian's {@code chromium} and {@code chromium-driver}): a message that
 * makes the model repeat a call shows the replay badge, one ledger row and one ticket. Saves a screenshot
 * to {@code target/screenshots/page.png}.
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
		// The page rebuilds its runs and its ledger every 2 s; here, every 100 ms as well, so that a test that
		// holds an element across a rebuild fails here, often, not once in a while in a build.
		((JavascriptExecutor) this.browser).executeScript("setInterval(refresh, 100)");
		// Every read below finds its elements again at each try; one that went stale in between is tried again.
		WebDriverWait wait = new WebDriverWait(this.browser, Duration.ofSeconds(30));
		wait.ignoring(StaleElementReferenceException.class);

		wait.until(ExpectedConditions.elementToBeClickable(By.id("message")))
			.sendKeys("open a ticket for the seal failure");
		this.browser.findElement(By.id("send")).click();

		// The newest run, read whole from one rebuild: its id once it shows the replay badge.
		String runId = wait.until((page) -> {
			WebElement run = page.findElement(By.cssSelector("#runs .run:first-child"));
			List<String> replayed = run.findElements(By.cssSelector(".badge[data-outcome='replayed']"))
				.stream()
				.map(WebElement::getText)
				.toList();
			return replayed.equals(List.of("replayed")) ? run.getDomAttribute("data-run") : null;
		});
		String run = "#runs .run[data-run='" + runId + "']";
		assertThat(this.browser.findElements(By.cssSelector(run + " .badge[data-outcome='executed']"))).hasSize(1);

		// The model's twin in the same turn, and its repeat that rephrased the description.
		wait.until(ExpectedConditions.textToBe(
				By.cssSelector(run + " .badge[data-outcome='replayed_different_details']"),
				"replayed, other details not applied"));
		List<LedgerView.Row> rows = this.ledger.ofRun(runId);
		assertThat(rows).hasSize(1);
		assertThat(rows.get(0).replayCount()).isEqualTo(2);
		assertThat(this.tickets.tickets()).hasSize(ticketsBefore + 1);
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("ticket-count"),
				String.valueOf(ticketsBefore + 1)));
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#ledger tbody"), runId));
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#chat .msg.assistant"),
				"already done earlier in this request"));

		File screenshot = ((TakesScreenshot) this.browser).getScreenshotAs(OutputType.FILE);
		Path saved = Path.of("target", "screenshots", "page.png");
		Files.createDirectories(saved.getParent());
		Files.copy(screenshot.toPath(), saved, StandardCopyOption.REPLACE_EXISTING);
	}

}
