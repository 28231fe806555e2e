package dev.lvg;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy in front of PostgreSQL that can break a connection at the worst moment: after the
 * server has done something, before the client hears it. Armed with the text of a command tag (say
 * {@code "INSERT 0 1"} or {@code "COMMIT"}), it drops the server's next message carrying it and
 * closes both sides of that connection, once.
 */
public final class ConnectionCutter implements AutoCloseable {
  private final ServerSocket listener;
  private final String targetHost;
  private final int targetPort;
  private final AtomicReference<Armed> armed = new AtomicReference<>();
  private final AtomicInteger cuts = new AtomicInteger();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  public ConnectionCutter(String targetHost, int targetPort) throws IOException {
    this(0, targetHost, targetPort);
  }

  /** A proxy listening on {@code port} of the loopback interface (0: any free port). */
  public ConnectionCutter(int port, String targetHost, int targetPort) throws IOException {
    this.listener = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    Thread acceptor = new Thread(this::accept, "cutter-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** Cuts the connection whose server side next sends {@code tag}. */
  public void armFor(String tag) {
    armFor(tag, tag);
  }

  /**
   * Cuts the connection whose server side next sends {@code tag} with {@code marker} in the same
   * read: a text of the answer's rows (a path the statement returns, say), so that a statement of
   * the gateway's own background work with the same tag goes through.
   */
  public void armFor(String tag, String marker) {
    armed.set(
        new Armed(
            tag.getBytes(StandardCharsets.US_ASCII), marker.getBytes(StandardCharsets.UTF_8)));
  }

  private record Armed(byte[] tag, byte[] marker) {}

  /** How many connections were cut. */
  public int cuts() {
    return cuts.get();
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(targetHost, targetPort);
        sockets.add(client);
        sockets.add(server);
        pump(client, server, false);
        pump(server, client, true);
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to, boolean fromServer) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[64 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                  Armed cut = armed.get();
                  if (fromServer
                      && cut != null
                      && contains(buffer, read, cut.tag())
                      && contains(buffer, read, cut.marker())
                      && armed.compareAndSet(cut, null)) {
                    cuts.incrementAndGet();
                    from.close();
                    to.close();
                    return;
                  }
                  out.write(buffer, 0, read);
                  out.flush();
                }
              } catch (IOException gone) {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "cutter-pump");
    thread.setDaemon(true);
    thread.start();
  }

  private static boolean contains(byte[] buffer, int length, byte[] pattern) {
    outer:
    for (int i = 0; i + pattern.length <= length; i++) {
      for (int j = 0; j < pattern.length; j++) {
        if (buffer[i + j] != pattern[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    for (Socket socket : sockets) {
      closeQuietly(socket);
    }
  }
}
