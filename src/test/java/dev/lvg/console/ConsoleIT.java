package dev.lvg.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.deque.html.axecore.results.Results;
import com.deque.html.axecore.results.Rule;
import com.deque.html.axecore.selenium.AxeBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import dev.lvg.auth.JwksIssuer;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser (Debian's chromium, headless, through its chromedriver) against a
 * real gateway: sign-in with each kind of key, the catalog down to a table's versions, a commit
 * appearing live, the operator issuing a key that then works on the API, a read key without write
 * controls whose forged write is refused, a wrong key's message; and, after every test, that no URL
 * the browser requested carried a credential. A failing test leaves a screenshot under
 * target/console-screenshots/.
 */
class ConsoleIT {
  private static final String ADMIN_KEY = "console-admin-key";
  private static final String CHROMIUM = "/usr/lib/chromium/chromium";
  private static final String CHROMEDRIVER = "/usr/bin/chromedriver";
  private static final Path SCREENSHOTS = Path.of("target", "console-screenshots");
  private static final ObjectMapper JSON = new ObjectMapper();

  private static TestGateway gw;
  private static JwksIssuer issuer;
  private static ChromeDriver browser;
  private static final List<String> requestedUrls = new ArrayList<>();
  private static final List<String> secrets = new ArrayList<>(List.of(ADMIN_KEY));

  @RegisterExtension
  final TestWatcher screenshots =
      new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
          screenshot(context.getRequiredTestMethod().getName());
        }
      };

  @BeforeAll
  static void start() throws Exception {
    if (!Files.isExecutable(Path.of(CHROMIUM)) || !Files.isExecutable(Path.of(CHROMEDRIVER))) {
      Process install = new ProcessBuilder("bash", "chaos/browser.sh").inheritIO().start();
      assertThat(install.waitFor()).as("chaos/browser.sh installed chromium").isZero();
    }
    issuer = new JwksIssuer();
    Map<String, String> settings = new HashMap<>(issuer.gatewaySettings());
    settings.put("LVG_CONSOLE", "true");
    settings.put("LVG_ADMIN_API_KEY", ADMIN_KEY);
    // A NATS sink whose broker never answers: the operator's live page shows it falling behind.
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      settings.put("LVG_FEED_NATS_URL", "nats://127.0.0.1:" + free.getLocalPort());
    }
    settings.put("LVG_FEED_SINK_POLL_MS", "1000");
    gw = TestGateway.dedicated(settings);
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    options.addArguments(
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900");
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.PERFORMANCE, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    ChromeDriverService service =
        new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER)).build();
    browser = new ChromeDriver(service, options);
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.quit();
    }
    if (gw != null) {
      gw.gateway.close();
    }
    if (issuer != null) {
      issuer.close();
    }
  }

  @BeforeEach
  void freshTab() {
    requested();
    requestedUrls.clear();
    browser.get(gw.baseUrl + "/console/");
    ((JavascriptExecutor) browser).executeScript("sessionStorage.clear()");
    browser.get(gw.baseUrl + "/console/");
  }

  /** No URL the browser asked for holds a credential (read from its performance log). */
  @AfterEach
  void noCredentialInAnyUrl() {
    List<String> urls = requested();
    assertThat(urls).isNotEmpty();
    for (String secret : secrets) {
      assertThat(urls).noneMatch(url -> url.contains(secret));
    }
  }

  /** Every URL the browser requested during this test, from its performance log. */
  private static List<String> requested() {
    for (LogEntry entry : browser.manage().logs().get(LogType.PERFORMANCE)) {
      try {
        JsonNode message = JSON.readTree(entry.getMessage()).path("message");
        if (message.path("method").asText().equals("Network.requestWillBeSent")) {
          requestedUrls.add(message.path("params").path("request").path("url").asText());
        }
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return requestedUrls;
  }

  private static void screenshot(String name) {
    try {
      Files.createDirectories(SCREENSHOTS);
      Files.copy(
          browser.getScreenshotAs(OutputType.FILE).toPath(),
          SCREENSHOTS.resolve(name + ".png"),
          StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String tenantKey(String prefix) {
    String key = gw.newTenant(prefix);
    secrets.add(key);
    return key;
  }

  private static String tenantOf(String key) {
    return Api.call(gw.baseUrl, "GET", "/v1/whoami", null, key).json().path("tenant").asText();
  }

  private static WebElement await(By by) {
    return new WebDriverWait(browser, Duration.ofSeconds(10))
        .until(ExpectedConditions.visibilityOfElementLocated(by));
  }

  /** Waits until exactly {@code count} elements match {@code by}. */
  private static void awaitCount(By by, int count) {
    new WebDriverWait(browser, Duration.ofSeconds(10))
        .until(d -> d.findElements(by).size() == count);
  }

  private static void signIn(String secret) {
    await(By.id("secret")).sendKeys(secret);
    browser.findElement(By.id("signin")).click();
  }

  private static String who() {
    return new WebDriverWait(browser, Duration.ofSeconds(10))
        .until(
            driver -> {
              String text = driver.findElement(By.id("who")).getText();
              return text.isEmpty() ? null : text;
            });
  }

  /** Declares ns$table and commits versions 1..n through the API. */
  private static void tableWithVersions(Api api, String namespace, String table, int n) {
    api.declare(namespace, table);
    for (int v = 1; v <= n; v++) {
      commit(api, namespace, table, v);
    }
  }

  private static void commit(Api api, String namespace, String table, int version) {
    String path = table + "/_versions/" + version + ".manifest";
    api.post(
            "/v1/table/" + namespace + "%24" + table + "/version/create",
            Api.createBody(version, path))
        .assertOk();
  }

  @Test
  void theConsoleIsServedWithItsSecurityHeaders() {
    for (String file : List.of("/console/", "/console/app.js", "/console/console.css")) {
      Api.Response response = Api.call(gw.baseUrl, "GET", file, null, null);
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.raw().headers().firstValue("Content-Security-Policy"))
          .contains(Console.CONTENT_SECURITY_POLICY);
      assertThat(response.raw().headers().firstValue("X-Content-Type-Options")).contains("nosniff");
      assertThat(response.raw().headers().firstValue("Set-Cookie")).isEmpty();
    }
    assertThat(Api.call(gw.baseUrl, "GET", "/console/missing.js", null, null).status())
        .isEqualTo(404);
  }

  @Test
  void aWriteKeyBrowsesToATableSeesItsVersionsAndCreatesANamespace() {
    String key = tenantKey("console-w");
    Api api = gw.api(key);
    tableWithVersions(api, "sales", "orders", 60);
    signIn(key);
    assertThat(who()).contains("read and write");
    await(By.xpath("//button[contains(., 'sales')]")).click();
    await(By.linkText("orders")).click();
    // The location shows before the versions arrive: wait for the rows themselves.
    awaitCount(By.cssSelector("#versions tbody tr"), 50); // one page, newest first
    List<WebElement> rows = browser.findElements(By.cssSelector("#versions tbody tr"));
    assertThat(rows).hasSize(50);
    assertThat(rows.get(0).findElement(By.tagName("td")).getText()).isEqualTo("60");
    browser.findElement(By.id("older-versions")).click();
    awaitCount(By.cssSelector("#versions tbody tr"), 60);
    await(By.xpath("//h3[text()='Branches']"));
    screenshot("readme-table");
    browser.findElement(By.linkText("Catalog")).click();
    await(By.id("namespace-name")).sendKeys("made_in_console");
    browser.findElement(By.cssSelector("#namespace-form button")).click();
    await(By.xpath("//button[contains(., 'made_in_console')]"));
    api.post("/v1/namespace/made_in_console/describe", "{}").assertOk();
  }

  @Test
  void aCommitMadeThroughTheApiAppearsLiveWithinTwoSeconds() {
    String key = tenantKey("console-live");
    Api api = gw.api(key);
    tableWithVersions(api, "live", "events", 1);
    signIn(key);
    who();
    browser.get(gw.baseUrl + "/console/#/live");
    new WebDriverWait(browser, Duration.ofSeconds(10))
        .until(
            ExpectedConditions.presenceOfElementLocated(
                By.cssSelector("#live-commits[data-tail='open']")));
    long committed = System.nanoTime();
    commit(api, "live", "events", 2);
    new WebDriverWait(browser, Duration.ofSeconds(2))
        .until(
            ExpectedConditions.textToBePresentInElementLocated(
                By.id("live-commits"), "live$events"));
    assertThat((System.nanoTime() - committed) / 1_000_000).isLessThan(2000);
    assertThat(browser.findElement(By.cssSelector("#live-commits tr td:nth-child(3)")).getText())
        .isEqualTo("2");
    new WebDriverWait(browser, Duration.ofSeconds(5))
        .until(d -> !d.findElement(By.id("commits-rate")).getText().equals("0.0"));
    screenshot("readme-live");
  }

  @Test
  void aReadKeySeesNoWriteControlsAndItsForgedWriteIsRefused() throws Exception {
    String writer = tenantKey("console-r");
    String tenant = tenantOf(writer);
    tableWithVersions(gw.api(writer), "ro", "table", 2);
    String reader = gw.readKey(tenant);
    secrets.add(reader);
    signIn(reader);
    assertThat(who()).contains("read only");
    await(By.xpath("//button[contains(., 'ro')]")).click();
    await(By.linkText("table")).click();
    await(By.xpath("//h3[text()='Branches']"));
    browser.findElement(By.linkText("Catalog")).click();
    await(By.xpath("//button[contains(., 'ro')]"));
    assertThat(browser.findElements(By.id("namespace-form"))).isEmpty();
    Object status =
        ((JavascriptExecutor) browser)
            .executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                    + "const secret = JSON.parse(sessionStorage.getItem('lvg.credential')).value;"
                    + "fetch('/v1/namespace/forged/create', {method: 'POST',"
                    + " headers: {'x-api-key': secret, 'Content-Type': 'application/json'},"
                    + " body: '{}'}).then(r => done(r.status), e => done(String(e)));");
    assertThat(status).isEqualTo(403L);
    gw.api(writer).post("/v1/namespace/forged/describe", "{}").assertError(404, 1);
  }

  @Test
  void aWrongKeyIsToldSoAndStaysSignedOut() {
    signIn("not-a-key-" + System.nanoTime());
    WebElement status = await(By.cssSelector("#status.error"));
    assertThat(status.getText()).contains("did not accept this credential");
    assertThat(browser.findElement(By.id("nav")).isDisplayed()).isFalse();
    assertThat(((JavascriptExecutor) browser).executeScript("return sessionStorage.length"))
        .isEqualTo(0L);
  }

  @Test
  void theOperatorIssuesAKeyInTheConsoleThatThenWorksOnTheApi() {
    String tenant = tenantOf(tenantKey("console-admin"));
    signIn(ADMIN_KEY);
    assertThat(who()).contains("operator");
    await(By.xpath("//caption[text()='Tenants']"));
    // The shared database holds many tenants: open this one's page by its address.
    browser.get(gw.baseUrl + "/console/#/admin/tenant/" + tenant);
    await(By.id("key-write")).click();
    browser.findElement(By.id("issue-key")).click();
    String issued = await(By.id("new-key-secret")).getText();
    secrets.add(issued);
    assertThat(issued).isNotBlank();
    Api api = gw.api(issued);
    api.post("/v1/namespace/fromconsole/create", "{}").assertOk();
    assertThat(
            Api.call(gw.baseUrl, "GET", "/v1/whoami", null, issued).json().path("tenant").asText())
        .isEqualTo(tenant);
    browser.get(gw.baseUrl + "/console/#/admin/admission");
    await(By.xpath("//caption[text()='Classes']"));
  }

  @Test
  void theOperatorSeesEachSinkOfTheChangeFeedAndHowFarBehindItIs() {
    tableWithVersions(gw.api(tenantKey("console-sink")), "sunk", "t", 1);
    signIn(ADMIN_KEY);
    assertThat(who()).contains("operator");
    browser.get(gw.baseUrl + "/console/#/live");
    new WebDriverWait(browser, Duration.ofSeconds(10))
        .until(ExpectedConditions.textToBePresentInElementLocated(By.id("live-sinks"), "nats"));
    List<WebElement> cells = browser.findElements(By.cssSelector("#live-sinks tr td"));
    assertThat(cells.get(0).getText()).isEqualTo("nats");
    assertThat(Long.parseLong(cells.get(1).getText())).as("events behind").isPositive();
    assertThat(cells.get(2).getText()).isNotBlank();
  }

  @Test
  void theOperatorCreatesDisablesAndEnablesATenantAndRevokesAKeyThroughTheConsole() {
    String tenant = "made-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    signIn(ADMIN_KEY);
    who();
    await(By.id("tenant-name")).sendKeys(tenant + Keys.ENTER);
    assertThat(await(By.cssSelector("#status.ok")).getText()).contains(tenant);
    browser.get(gw.baseUrl + "/console/#/admin/tenant/" + tenant);
    await(By.id("issue-key")).click(); // read only: "May write" left unticked
    String key = await(By.id("new-key-secret")).getText();
    secrets.add(key);
    JsonNode caller = Api.call(gw.baseUrl, "GET", "/v1/whoami", null, key).json();
    assertThat(caller.path("tenant").asText()).isEqualTo(tenant);
    assertThat(caller.path("rights").toString()).isEqualTo("[\"read\"]");

    toggleTenant("Disable", tenant);
    awaitStatus(key, 403);
    toggleTenant("Enable", tenant);
    awaitStatus(key, 200);

    browser.get(gw.baseUrl + "/console/#/admin/tenant/" + tenant);
    await(By.cssSelector("button[aria-label^='Revoke key']")).click();
    await(By.xpath("//p[text()='No keys.']"));
    awaitStatus(key, 401);
    // The audit trail, oldest first, shows what the console did.
    browser.navigate().refresh();
    awaitCount(By.xpath("//td[text()='DisableTenant' or text()='EnableTenant']"), 2);
  }

  /** On the tenants page, pages on until the tenant's button shows, and presses it. */
  private static void toggleTenant(String action, String tenant) {
    browser.get(gw.baseUrl + "/console/#/admin/tenants");
    By button = By.cssSelector("button[aria-label='" + action + " tenant " + tenant + "']");
    By more = By.xpath("//button[text()='More tenants']");
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .ignoring(StaleElementReferenceException.class)
        .until(
            d -> {
              if (!d.findElements(button).isEmpty()) {
                return true;
              }
              d.findElements(more).forEach(WebElement::click);
              return false;
            });
    browser.findElement(button).click();
    await(By.cssSelector("#status.ok"));
  }

  /**
   * Waits until {@code key} gets {@code status} from the API (a credential change may take a
   * moment).
   */
  private static void awaitStatus(String key, int status) {
    new WebDriverWait(browser, Duration.ofSeconds(10))
        .until(d -> Api.call(gw.baseUrl, "GET", "/v1/whoami", null, key).status() == status);
  }

  @Test
  void aBearerTokenSignsInWithTheRightsItGrants() throws Exception {
    String tenant = tenantOf(tenantKey("console-jwt"));
    String token =
        JwksIssuer.token(issuer.signing, "k1", JwksIssuer.claims(tenant, "lance:read lance:write"));
    secrets.add(token);
    new Select(await(By.id("kind"))).selectByValue("token");
    signIn(token);
    assertThat(who()).isEqualTo("Tenant " + tenant + " · read and write");
    await(By.id("namespace-form"));
  }

  /**
   * 1,000 namespaces and a table of 100,000 versions: the tree shows 100 namespaces and a button
   * for the next 100; the table page asks for one page of 50 versions, newest first.
   */
  @Test
  void aThousandNamespacesAndAHundredThousandVersionsAreReadAPageAtATime() {
    String key = tenantKey("console-big");
    Api api = gw.api(key);
    api.declare("big", "history");
    for (int i = 1; i < 1000; i++) {
      api.post("/v1/namespace/ns" + String.format("%04d", i) + "/create", "{}").assertOk();
    }
    for (int batch = 0; batch < 100; batch++) {
      StringBuilder entries = new StringBuilder();
      for (int v = batch * 1000 + 1; v <= (batch + 1) * 1000; v++) {
        entries
            .append(entries.length() == 0 ? "" : ",")
            .append("{\"id\":[\"big\",\"history\"],\"version\":")
            .append(v)
            .append(",\"manifest_path\":\"history/_versions/")
            .append(v)
            .append(".manifest\"}");
      }
      api.post("/v1/table/version/batch-create", "{\"entries\":[" + entries + "]}").assertOk();
    }
    signIn(key);
    who();
    By namespaces = By.cssSelector("ul.tree.root > li > button.toggle");
    awaitCount(namespaces, 100);
    browser.findElement(By.xpath("//button[text()='More namespaces']")).click();
    awaitCount(namespaces, 200);
    browser.get(
        gw.baseUrl
            + "/console/#/table/"
            + java.net.URLEncoder.encode(
                    "[\"big\",\"history\"]", java.nio.charset.StandardCharsets.UTF_8)
                .replace("+", "%20"));
    awaitCount(By.cssSelector("#versions tbody tr"), 50);
    assertThat(browser.findElement(By.cssSelector("#versions tbody tr td")).getText())
        .isEqualTo("100000");
    assertThat(requested())
        .filteredOn(url -> url.contains("/version/list"))
        .singleElement()
        .satisfies(url -> assertThat(url).contains("limit=50"));
  }

  /**
   * axe-core finds no WCAG 2.1 A or AA violation on the sign-in, catalog, table, live and operator
   * pages; the catalog is used with the keyboard alone; at 400 px wide nothing overflows the page.
   */
  @Test
  void thePagesPassAnAccessibilityAuditWorkFromTheKeyboardAndFitANarrowWindow() {
    String key = tenantKey("console-a11y");
    tableWithVersions(gw.api(key), "docs", "pages", 3);
    accessible("sign-in");
    // The key field has the focus; Enter submits the form.
    new Actions(browser).sendKeys(key + Keys.ENTER).perform();
    who();
    await(By.xpath("//button[contains(., 'docs')]"));
    accessible("catalog");
    tabTo(element -> element.getTagName().equals("button") && element.getText().contains("docs"));
    new Actions(browser).sendKeys(Keys.ENTER).perform();
    await(By.linkText("pages"));
    tabTo(element -> element.getTagName().equals("a") && element.getText().equals("pages"));
    new Actions(browser).sendKeys(Keys.ENTER).perform();
    await(By.id("location"));
    accessible("table");
    browser.manage().window().setSize(new Dimension(400, 800));
    try {
      Object overflow =
          ((JavascriptExecutor) browser)
              .executeScript(
                  "return document.documentElement.scrollWidth - document.documentElement.clientWidth");
      assertThat(((Number) overflow).longValue()).isLessThanOrEqualTo(0);
      screenshot("narrow-table");
    } finally {
      browser.manage().window().setSize(new Dimension(1280, 900));
    }
    browser.get(gw.baseUrl + "/console/#/live");
    await(By.id("commits-rate"));
    accessible("live");
    browser.findElement(By.xpath("//button[text()='Sign out']")).click();
    signIn(ADMIN_KEY);
    who();
    await(By.xpath("//caption[text()='Tenants']"));
    accessible("tenants");
    browser.get(gw.baseUrl + "/console/#/admin/tenant/" + tenantOf(key));
    await(By.id("issue-key"));
    accessible("tenant");
    browser.get(gw.baseUrl + "/console/#/admin/admission");
    await(By.xpath("//caption[text()='Requesters']"));
    accessible("admission");
  }

  private static void accessible(String page) {
    Results results =
        new AxeBuilder()
            .withTags(List.of("wcag2a", "wcag2aa", "wcag21a", "wcag21aa"))
            .analyze(browser);
    List<String> violations = new ArrayList<>();
    for (Rule rule : results.getViolations()) {
      violations.add(rule.getId() + ": " + rule.getHelp() + " (" + rule.getNodes().size() + ")");
    }
    assertThat(violations).as("accessibility of the " + page + " page").isEmpty();
  }

  /** Presses Tab until the focused element is the one sought (at most 60 times). */
  private static WebElement tabTo(Predicate<WebElement> sought) {
    for (int i = 0; i < 60; i++) {
      WebElement focused = browser.switchTo().activeElement();
      if (sought.test(focused)) {
        return focused;
      }
      new Actions(browser).sendKeys(Keys.TAB).perform();
    }
    throw new AssertionError("Tab never reached the element sought");
  }
}
