package dev.lvg.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code nats-server} with JetStream (Debian's package, installed by {@code chaos/nats.sh} when
 * missing) on a free port, its store under {@code target/}; it can be stopped and started again on
 * the same port and store. Streams are read back with the official client.
 */
final class NatsBroker implements AutoCloseable {
  private final int port;
  private final Path store;
  private Process server;

  NatsBroker() throws Exception {
    if (!onPath("nats-server")) {
      Process install = new ProcessBuilder("bash", "chaos/nats.sh").inheritIO().start();
      assertThat(install.waitFor()).as("chaos/nats.sh installed nats-server").isZero();
    }
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    store = Files.createTempDirectory(Path.of("target"), "nats-");
    start();
  }

  int port() {
    return port;
  }

  String url() {
    return "nats://127.0.0.1:" + port;
  }

  private static boolean onPath(String command) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }

  /** Starts the server, and returns once it listens. */
  void start() throws Exception {
    server =
        new ProcessBuilder(
                "nats-server",
                "-js",
                "-a",
                "127.0.0.1",
                "-p",
                Integer.toString(port),
                "-sd",
                store.toString())
            .redirectErrorStream(true)
            .redirectOutput(store.resolve("server.log").toFile())
            .start();
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (System.nanoTime() < deadline) {
      try (Socket probe = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException notYet) {
        Thread.sleep(100);
      }
    }
    throw new IllegalStateException(
        "nats-server did not listen: " + Files.readString(store.resolve("server.log")));
  }

  /** Stops the server. */
  void stop() throws Exception {
    server.destroy();
    assertThat(server.waitFor(20, TimeUnit.SECONDS)).isTrue();
  }

  @Override
  public void close() {
    server.destroy();
  }

  /** How many messages {@code stream} holds now. */
  long count(String stream) throws Exception {
    try (Connection nats = Nats.connect(url())) {
      return nats.jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount();
    }
  }

  /** Every message of {@code stream} once it holds {@code count}, waiting up to {@code seconds}. */
  List<MessageInfo> awaitStream(String stream, int count, int seconds) throws Exception {
    try (Connection nats = Nats.connect(url())) {
      JetStreamManagement management = nats.jetStreamManagement();
      long deadline = System.nanoTime() + seconds * 1_000_000_000L;
      long stored = 0;
      while (System.nanoTime() < deadline) {
        try {
          stored = management.getStreamInfo(stream).getStreamState().getMsgCount();
        } catch (Exception notYet) {
          stored = 0;
        }
        if (stored >= count) {
          break;
        }
        Thread.sleep(100);
      }
      assertThat(stored).as("messages in the stream within %d s", seconds).isEqualTo(count);
      long first = management.getStreamInfo(stream).getStreamState().getFirstSequence();
      List<MessageInfo> messages = new ArrayList<>();
      for (long sequence = first; sequence < first + stored; sequence++) {
        messages.add(management.getMessage(stream, sequence));
      }
      return messages;
    }
  }
}
