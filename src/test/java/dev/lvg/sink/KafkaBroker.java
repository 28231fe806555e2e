package dev.lvg.sink;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;

/**
 * A single Apache Kafka broker in KRaft mode (broker and controller in one process), started from
 * its Maven artifacts (the test class path) in a JVM of its own, on free ports, its log under
 * {@code target/}; it can be stopped and started again on the same ports and data. Besides its
 * plain listener it has one that takes SASL/PLAIN credentials ({@link #SASL_USER}).
 */
final class KafkaBroker implements AutoCloseable {
  private final Path dir;
  private final int port;
  private final int controllerPort;
  private final int saslPort;
  private Process process;

  KafkaBroker() throws Exception {
    dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "kafka-");
    port = freePort();
    controllerPort = freePort();
    saslPort = freePort();
    Files.writeString(
        dir.resolve("server.properties"),
        String.join(
            "\n",
            "process.roles=broker,controller",
            "node.id=1",
            "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
            "listeners=PLAINTEXT://127.0.0.1:"
                + port
                + ",SASL_PLAINTEXT://127.0.0.1:"
                + saslPort
                + ",CONTROLLER://127.0.0.1:"
                + controllerPort,
            "advertised.listeners=PLAINTEXT://127.0.0.1:"
                + port
                + ",SASL_PLAINTEXT://127.0.0.1:"
                + saslPort,
            "inter.broker.listener.name=PLAINTEXT",
            "controller.listener.names=CONTROLLER",
            "listener.security.protocol.map="
                + "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
            "sasl.enabled.mechanisms=PLAIN",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config="
                + "org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " user_"
                + SASL_USER
                + "=\""
                + SASL_PASSWORD
                + "\";",
            "log.dirs=" + dir.resolve("data"),
            "auto.create.topics.enable=false",
            "offsets.topic.replication.factor=1",
            "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1",
            "group.initial.rebalance.delay.ms=0",
            ""));
    Process format =
        java(
                "kafka.tools.StorageTool",
                "format",
                "-t",
                Uuid.randomUuid().toString(),
                "-c",
                dir.resolve("server.properties").toString())
            .redirectOutput(dir.resolve("format.log").toFile())
            .start();
    if (!format.waitFor(120, TimeUnit.SECONDS) || format.exitValue() != 0) {
      throw new IllegalStateException(
          "formatting Kafka's storage failed: " + Files.readString(dir.resolve("format.log")));
    }
    start();
  }

  /** The user and password the SASL/PLAIN listener ({@link #saslBootstrap}) takes. */
  static final String SASL_USER = "lvg";

  static final String SASL_PASSWORD = "lvg-secret";

  /** The listener that asks for SASL/PLAIN credentials. */
  String saslBootstrap() {
    return "127.0.0.1:" + saslPort;
  }

  /** The bootstrap servers to give clients. */
  String bootstrap() {
    return "127.0.0.1:" + port;
  }

  /** Starts the broker and waits for its port. */
  void start() throws Exception {
    process =
        java("kafka.Kafka", dir.resolve("server.properties").toString())
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("broker.log").toFile()))
            .start();
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (System.nanoTime() < deadline) {
      try (Socket probe = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException notYet) {
        if (!process.isAlive()) {
          break;
        }
        Thread.sleep(200);
      }
    }
    throw new IllegalStateException(
        "the Kafka broker did not listen: " + Files.readString(dir.resolve("broker.log")));
  }

  /** Stops the broker (SIGTERM, as an operator would) and waits for it. */
  void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }

  private static ProcessBuilder java(String main, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx512m");
    command.add("-cp");
    command.add(
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    command.add(main);
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectErrorStream(true);
  }

  private static int freePort() throws IOException {
    try (ServerSocket free = new ServerSocket(0)) {
      return free.getLocalPort();
    }
  }
}
