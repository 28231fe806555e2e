package dev.lvg;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packaged gateway ({@code target/lance-version-gateway.jar}, made by {@code mvn package}) in a
 * process of its own, on free ports, in record mode unless the settings say otherwise; its output,
 * its data and its temporary files under {@code target/}.
 */
public record GatewayProcess(Process process, int apiPort, int managementPort, Path log) {
  private static final Pattern SERVING =
      Pattern.compile("serving the API on [^:]+:(\\d+), .* management on [^:]+:(\\d+)");

  /** Starts a gateway with {@code settings} ({@code LVG_*}) and returns once it serves. */
  public static GatewayProcess start(Map<String, String> settings) throws Exception {
    Path jar = Path.of("target/lance-version-gateway.jar");
    if (!Files.exists(jar)) {
      throw new AssertionError("the packaged gateway (mvn package) is missing: " + jar);
    }
    Path target = Path.of("target").toAbsolutePath();
    Path log = Files.createTempFile(target, "lvg-process-", ".log");
    Path tmp = Files.createDirectories(target.resolve("tmp"));
    ProcessBuilder builder =
        new ProcessBuilder("java", "-Xmx256m", "-Djava.io.tmpdir=" + tmp, "-jar", jar.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    Map<String, String> env = builder.environment();
    env.put("LVG_HOST", "127.0.0.1");
    env.put("LVG_PORT", "0");
    env.put("LVG_MANAGEMENT_PORT", "0");
    env.put("LVG_MANIFEST_MODE", "record");
    env.put("LVG_DATA_DIR", Files.createTempDirectory(target, "lvg-process-data-").toString());
    env.putAll(settings);
    Process process = builder.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline && process.isAlive()) {
      Matcher serving = SERVING.matcher(Files.readString(log));
      if (serving.find()) {
        return new GatewayProcess(
            process, Integer.parseInt(serving.group(1)), Integer.parseInt(serving.group(2)), log);
      }
      Thread.sleep(50);
    }
    process.destroyForcibly();
    throw new AssertionError("the gateway did not start: " + Files.readString(log));
  }

  /** Its API, called with {@code key}. */
  public Api api(String key) {
    return new Api("http://127.0.0.1:" + apiPort, key);
  }

  public String managementUrl() {
    return "http://127.0.0.1:" + managementPort;
  }

  /** Stops it with SIGTERM, and with SIGKILL when it has not ended within 30 s. */
  public void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
