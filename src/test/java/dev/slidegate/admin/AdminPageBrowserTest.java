package dev.slidegate.admin;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import dev.slidegate.testing.AdminCredentials;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;

/**
 * The live admin page in headless Chromium (Debian's chromium and chromedriver), on the Redis store:
 * it loads with the admin user, a caller's bar moves as it sends requests, hostile key text is never run, and the reset
 * button lets the caller in again. Saves target/admin-page.png.
 */
@QuarkusTest
@TestProfile(dev.slidegate.http.SharedProfiles.OnRedis.class)
class AdminPageBrowserTest {

    /** One browser for the class (its start is seconds of the test's time): each test loads the page anew. */
    private static WebDriver page;

    @BeforeAll
    static void startBrowser() throws Exception {
        page = browser();
    }

    @AfterAll
    static void quitBrowser() {
        if (page != null) {
            page.quit();
        }
    }

    private static WebDriver browser() throws Exception {
        // found on the PATH, as every program a test needs: a machine (or a PATH) without them skips, saying so
        String chromium = dev.slidegate.testing.Tools
                .require("chromium", "AdminPageBrowserTest", "apt-get install chromium chromium-driver").toString();
        String driver = dev.slidegate.testing.Tools
                .require("chromedriver", "AdminPageBrowserTest", "apt-get install chromium chromium-driver").toString();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1280,1000", "--user-data-dir=" + dev.slidegate.testing.Leftovers.tempDirectory("chromium"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(driver))
                .usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    @jakarta.inject.Inject
    dev.slidegate.config.StoreStack stack;

    /** Each test starts from an empty Redis: its callers are the page's only keys. */
    @org.junit.jupiter.api.BeforeEach
    void flush() {
        dev.slidegate.testing.RedisTestResource.flushAll(stack);
    }

    @Test
    void thePageShowsCountsMovingAndResetsACaller() throws Exception {
        page.get("http://" + AdminCredentials.inUrl() + "localhost:" + RestAssured.port + "/admin");
        WebDriverWait wait = new WebDriverWait(page, Duration.ofSeconds(15));
        wait.until(d -> !d.findElements(By.cssSelector("section[data-policy='reports']")).isEmpty());

        String apiKey = "browser-" + UUID.randomUUID().toString().substring(0, 8);
        String row = "section[data-policy='reports'] tr[data-key='hdr:" + apiKey + "']";
        for (int i = 0; i < 2; i++) {
            given().header("X-Api-Key", apiKey).get("/api/reports").then().statusCode(200);
        }
        wait.until(d -> !d.findElements(By.cssSelector(row + " .bar[data-used='2']")).isEmpty());
        By refusals = By.cssSelector("section[data-policy='reports'] .refused");
        String refusedBefore = page.findElement(refusals).getText(); // the application's count so far (a shared profile)
        given().header("X-Api-Key", apiKey).get("/api/reports").then().statusCode(200);
        given().header("X-Api-Key", apiKey).get("/api/reports").then().statusCode(429);
        wait.until(d -> !d.findElements(By.cssSelector(row + " .bar.full[data-used='3']")).isEmpty());
        wait.until(d -> !d.findElement(refusals).getText().equals(refusedBefore));

        // a caller-controlled key never becomes markup: it reaches the store hashed, and the page writes text only
        given().header("X-Api-Key", "<img src=x onerror=\"document.title='owned'\">").get("/api/reports");
        wait.until(d -> d.findElements(By.cssSelector("section[data-policy='reports'] tbody tr")).size() >= 2);
        assertFalse(page.getTitle().contains("owned"));
        assertTrue(page.findElements(By.cssSelector("section[data-policy='reports'] td.key img")).isEmpty());
        assertNoAlert(page);

        ((org.openqa.selenium.JavascriptExecutor) page).executeScript("arguments[0].scrollIntoView()",
                page.findElement(By.cssSelector("section[data-policy='reports']")));
        Path shot = Path.of("target", "admin-page.png");
        Files.createDirectories(shot.getParent());
        Files.copy(((TakesScreenshot) page).getScreenshotAs(OutputType.FILE).toPath(), shot,
                StandardCopyOption.REPLACE_EXISTING);

        click(page, By.cssSelector(row + " button.reset"));
        wait.until(d -> d.findElements(By.cssSelector(row)).isEmpty());
        given().header("X-Api-Key", apiKey).get("/api/reports").then().statusCode(200);
        // "store: redis", then what the application counted so far (refusals it answered itself) in a shared profile
        String store = page.findElement(By.id("store")).getText();
        assertTrue(store.equals("store: redis") || store.startsWith("store: redis · "), store);

        // issue 58: what is happening first. The busy policy charts its last minutes (the refusal just made is in
        // them); policies with nothing in their windows and nothing counted lately are folded into one list
        wait.until(d -> d.findElement(By.cssSelector("section[data-policy='reports'] .trend svg")).getAttribute("aria-label")
                .matches(".*[1-9][0-9]* refused.*"));
        assertEquals(3, page.findElements(By.cssSelector("section[data-policy='reports'] .trend polyline")).size());
        wait.until(d -> !d.findElements(By.cssSelector("#idle li")).isEmpty());
        // (read in one script: the page redraws the list every second)
        Object shown = ((org.openqa.selenium.JavascriptExecutor) page).executeScript("return [...document.querySelectorAll("
                + "'#idle li')].map(li => li.dataset.policy).filter(name => document.querySelector("
                + "'section[data-policy=\"' + name + '\"]').offsetParent !== null)");
        assertEquals(List.of(), shown, "an idle policy is folded, not shown as a card");
        assertTrue(page.findElement(By.cssSelector("section[data-policy='reports']")).isDisplayed());

        // a search by key finds where the caller holds state, with its windows
        fill(page, "key", "hdr:" + apiKey);
        page.findElement(By.cssSelector("#search-form button[type=submit]")).click();
        By found = By.cssSelector("#search-results tr[data-key='hdr:" + apiKey + "']");
        wait.until(d -> !d.findElements(found).isEmpty());
        assertTrue(page.findElement(found).getText().startsWith("reports"), page.findElement(found).getText());
        assertEquals(1,
                page.findElements(By.cssSelector("#search-results tr[data-key='hdr:" + apiKey + "'] .bar[data-used='1']"))
                        .size(),
                "its window after the reset and one more call");
        ((org.openqa.selenium.JavascriptExecutor) page).executeScript("window.scrollTo(0, 0)");
        Files.copy(((TakesScreenshot) page).getScreenshotAs(OutputType.FILE).toPath(),
                Path.of("target", "admin-busy-first.png"),
                StandardCopyOption.REPLACE_EXISTING);
    }

    // a key holding "/../" segments is reset exactly: its own window goes, the login window of the
    // address it names stays (the page sends each key as one encoded path segment)
    @Test
    void resetResetsExactlyTheKeyShownWhateverItHolds() throws Exception {
        for (int i = 0; i < 2; i++) {
            given().contentType("application/json").body("{\"username\": \"alice\", \"password\": \"wrong\"}")
                    .post("/api/login").then().statusCode(401);
        }
        admin().get("/admin/policies/login/keys/ip:127.0.0.1").then().body("limits[0].used",
                org.hamcrest.Matchers.equalTo(2));
        String hostile = "/../../../login/keys/ip:127.0.0.1";
        given().header("X-Api-Key", hostile).get("/api/reports").then().statusCode(200);
        page.get("http://" + AdminCredentials.inUrl() + "localhost:" + RestAssured.port + "/admin");
        WebDriverWait wait = new WebDriverWait(page, Duration.ofSeconds(15));
        String row = "section[data-policy='reports'] tr[data-key='hdr:" + hostile + "']";
        wait.until(d -> !d.findElements(By.cssSelector(row)).isEmpty());
        click(page, By.cssSelector(row + " button.reset"));
        wait.until(d -> d.findElements(By.cssSelector(row)).isEmpty());
        admin().get("/admin/policies/reports/keys/hdr:" + hostile.replace("/", "%2F")).then().body("limits[0].used",
                org.hamcrest.Matchers.equalTo(0));
        admin().get("/admin/policies/login/keys/ip:127.0.0.1").then().body("limits[0].used",
                org.hamcrest.Matchers.equalTo(2));
    }

    // the overrides panel: an operator blocks a caller from the form (the caller is refused at once),
    // a bad limit is answered with the problem's sentence, and Remove lifts the block
    @Test
    void anOperatorAddsAndRemovesAnOverrideOnThePage() throws Exception {
        String apiKey = "blocked-" + UUID.randomUUID().toString().substring(0, 8);
        try {
            page.get("http://" + AdminCredentials.inUrl() + "localhost:" + RestAssured.port + "/admin");
            WebDriverWait wait = new WebDriverWait(page, Duration.ofSeconds(15));
            wait.until(d -> !d.findElements(By.cssSelector("section[data-policy='reports']")).isEmpty());
            assertTrue(page.findElement(By.cssSelector("#overrides .empty")).isDisplayed());

            fill(page, "policy", "reports");
            new org.openqa.selenium.support.ui.Select(page.findElement(By.name("scope"))).selectByValue("key");
            fill(page, "target", "hdr:" + apiKey);
            fill(page, "limits", "3/x");
            page.findElement(By.cssSelector("#override-form button[type=submit]")).click();
            wait.until(d -> d.findElement(By.id("override-status")).getText().contains("is not a limit"));

            new org.openqa.selenium.support.ui.Select(page.findElement(By.name("effect"))).selectByValue("block");
            fill(page, "minutes", "10");
            fill(page, "reason", "<b>scraper</b>");
            page.findElement(By.cssSelector("#override-form button[type=submit]")).click();
            wait.until(d -> d.findElement(By.id("override-status")).getText().equals("added"));
            given().header("X-Api-Key", apiKey).get("/api/reports").then().statusCode(429);
            By row = By.xpath("//section[@id='overrides']//tbody/tr[td[contains(., '" + apiKey + "')]]");
            wait.until(d -> !d.findElements(row).isEmpty());
            assertTrue(page.findElement(row).getText().contains("block"), page.findElement(row).getText());
            assertTrue(page.findElement(row).getText().contains("<b>scraper</b>"), "the reason is shown as text");
            Files.copy(((TakesScreenshot) page).getScreenshotAs(OutputType.FILE).toPath(),
                    Path.of("target", "admin-overrides.png"),
                    StandardCopyOption.REPLACE_EXISTING);
            admin().get("/admin/overrides").then().body("overrides[0].key", org.hamcrest.Matchers.equalTo("hdr:" + apiKey))
                    .body("overrides[0].expiresIn", org.hamcrest.Matchers.lessThanOrEqualTo(600));

            click(page, new org.openqa.selenium.support.pagefactory.ByChained(row, By.cssSelector("button.remove")));
            wait.until(d -> d.findElements(row).isEmpty());
            given().header("X-Api-Key", apiKey).get("/api/reports").then().statusCode(200);
            assertNoAlert(page);
        } finally {
            admin().delete("/admin/policies/reports/keys/hdr:" + apiKey + "/override");
        }
    }

    private static io.restassured.specification.RequestSpecification admin() {
        return AdminCredentials.admin();
    }

    /**
     * Clicks what {@code locator} finds, finding it again when the live page redrew it between the find
     * and the click (every stream event redraws the tables).
     */
    private static void click(WebDriver page, By locator) {
        new WebDriverWait(page, Duration.ofSeconds(15)).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(d -> {
                    d.findElement(locator).click();
                    return true;
                });
    }

    private static void fill(WebDriver page, String name, String text) {
        org.openqa.selenium.WebElement field = page.findElement(By.name(name));
        field.clear();
        field.sendKeys(text);
    }

    private static void assertNoAlert(WebDriver page) {
        try {
            page.switchTo().alert();
            Assertions.fail("a script ran from caller-controlled text");
        } catch (NoAlertPresentException expected) {
            // nothing ran
        }
    }
}
