package io.reme.app;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * The system's headless Chromium driven through its own chromedriver (Debian's {@code chromium} and
 * {@code chromium-driver}; {@code CHROMIUM} and {@code CHROMEDRIVER} override the paths). Both paths
 * are given to Selenium, so it never looks for or downloads a driver. Missing binaries fail the test
 * with what to install: the browser tests must run wherever the build runs ({@code .ci/run} installs
 * them).
 */
final class HeadlessChromium {
    private HeadlessChromium() {}

    static ChromeDriver start(Path profile, int width, int height) throws IOException {
        File browser = executable("CHROMIUM", "/usr/bin/chromium");
        File driver = executable("CHROMEDRIVER", "/usr/bin/chromedriver");
        Files.createDirectories(profile);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(browser);
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--window-size=" + width + "," + height,
                "--user-data-dir=" + profile.toAbsolutePath());
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(driver)
                .usingAnyFreePort()
                .withTimeout(Duration.ofSeconds(60))
                .build();
        ChromeDriver chrome = new ChromeDriver(service, options);
        chrome.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
        return chrome;
    }

    /** The browser's console lines at warning level or above since the last call. */
    static List<String> problems(ChromeDriver chrome) {
        return chrome.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.WARNING.intValue())
                .map(entry -> entry.getLevel() + " " + entry.getMessage())
                .toList();
    }

    private static File executable(String variable, String fallback) {
        String configured = System.getenv(variable);
        File file = new File(configured == null || configured.isBlank() ? fallback : configured);
        if (!file.canExecute()) {
            throw new AssertionError("the browser tests need " + file + " (set " + variable
                    + " to another path): install Debian's chromium and chromium-driver, e.g. "
                    + "'apt-get install -y chromium chromium-driver'; .ci/run does this itself");
        }
        return file;
    }
}
