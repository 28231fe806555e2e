package dev.lvg.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;

/**
 * An open-loop HTTP/1.1 load: request n leaves at {@code start + n / rate} whatever the answers, on
 * a keep-alive connection of its own while it runs (no pipelining), and its latency counts from
 * that scheduled time, so time spent waiting for a free connection counts too (no coordinated
 * omission). One thread and one selector, requests encoded before the run: its cost per request is
 * a write and a read, so the floor it puts under the latencies it measures stays low on a machine
 * it shares with the server. Connections stay open from one run to the next, so a warm-up at the
 * rate opens the connections the measured run needs. Answers must carry a Content-Length (the
 * servers measured here always send one); anything else fails the run. Not thread-safe.
 */
final class OpenLoop implements AutoCloseable {
  /** Hears every answer: its status, or -1 when the connection failed, and its scheduled time. */
  interface Answers {
    void answered(int status, long scheduledNanos);
  }

  private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(120);
  private static final byte[] HEAD_END = {'\r', '\n', '\r', '\n'};
  private static final byte[] CONTENT_LENGTH =
      "content-length:".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CONNECTION = "connection:".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CLOSE = "close".getBytes(StandardCharsets.US_ASCII);

  private final InetSocketAddress server;
  private final int maxConnections;
  private final Selector selector;
  private final ArrayDeque<Connection> idle = new ArrayDeque<>();
  private int open;
  private long[] late = new long[0];

  OpenLoop(InetSocketAddress server, int maxConnections) {
    this.server = server;
    this.maxConnections = maxConnections;
    try {
      this.selector = Selector.open();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The bytes of one POST with a JSON body. */
  static byte[] post(String host, String path, String key, String body) {
    byte[] content = body.getBytes(StandardCharsets.UTF_8);
    String head =
        "POST "
            + path
            + " HTTP/1.1\r\nHost: "
            + host
            + "\r\nContent-Type: application/json\r\n"
            + (key == null ? "" : "x-api-key: " + key + "\r\n")
            + "Content-Length: "
            + content.length
            + "\r\n\r\n";
    byte[] head8 = head.getBytes(StandardCharsets.US_ASCII);
    byte[] request = new byte[head8.length + content.length];
    System.arraycopy(head8, 0, request, 0, head8.length);
    System.arraycopy(content, 0, request, head8.length, content.length);
    return request;
  }

  /**
   * Sends {@code total} requests at {@code rate} per second, request n being {@code
   * requests.apply(n)}, and returns once every one is answered.
   */
  void run(double rate, long total, LongFunction<byte[]> requests, Answers answers)
      throws IOException {
    double interval = 1e9 / rate;
    long start = System.nanoTime();
    long due = 0;
    long sent = 0;
    long[] answered = {0};
    late = new long[(int) total];
    // Kept connections the server closed since the last run (its idle timeout, say) are dropped
    // now, not found dead by the first requests of this one.
    selector.selectNow(key -> ((Connection) key.attachment()).ready(key, answers, answered));
    while (answered[0] < total) {
      long now = System.nanoTime();
      while (due < total && start + (long) (due * interval) <= now) {
        due++;
      }
      // Requests go out in order: those due and not yet sent wait for a connection.
      while (sent < due) {
        Connection connection = idle.poll();
        if (connection == null) {
          if (open >= maxConnections) {
            break;
          }
          connection = connect();
        }
        long scheduled = start + (long) (sent * interval);
        late[(int) sent] = System.nanoTime() - scheduled;
        connection.send(requests.apply(sent), scheduled);
        sent++;
      }
      if (now - start > (long) (total * interval) + GIVE_UP_NANOS) {
        throw new IOException(
            (total - answered[0]) + " requests unanswered 120 s after the last was due");
      }
      long untilNext = due < total ? start + (long) (due * interval) - now : 0;
      long waitMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(untilNext));
      selector.select(
          key -> ((Connection) key.attachment()).ready(key, answers, answered), waitMillis);
    }
  }

  /**
   * Opens connections until {@code count} are open (at most the cap) and returns once each is
   * connected or failed, so a run that follows sends its first requests on them at once instead of
   * opening a connection for each while the first answers are on their way.
   */
  void connect(int count) throws IOException {
    int wanted = Math.min(count, maxConnections);
    while (open < wanted) {
      connect();
    }
    long deadline = System.nanoTime() + GIVE_UP_NANOS;
    long[] none = {0};
    while (idle.size() < open) {
      if (System.nanoTime() > deadline) {
        throw new IOException((open - idle.size()) + " connections not open after 120 s");
      }
      // No request is out, so no answer can come: nothing is recorded.
      selector.select(key -> ((Connection) key.attachment()).ready(key, null, none), 100);
    }
  }

  /**
   * How late each request of the last run left, in nanoseconds: time this thread spent elsewhere
   * (its own work, or waiting for a core) and waiting for a connection, which every latency it
   * measures includes.
   */
  long[] lateness() {
    return late.clone();
  }

  private Connection connect() throws IOException {
    SocketChannel channel = SocketChannel.open();
    channel.configureBlocking(false);
    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    open++;
    Connection connection = new Connection(channel);
    channel.connect(server);
    connection.key = channel.register(selector, SelectionKey.OP_CONNECT, connection);
    return connection;
  }

  @Override
  public void close() throws IOException {
    for (SelectionKey key : selector.keys()) {
      key.channel().close();
    }
    selector.close();
  }

  /** One keep-alive connection, carrying one request at a time. */
  private final class Connection {
    final SocketChannel channel;
    final ByteBuffer in = ByteBuffer.allocateDirect(1 << 16);
    SelectionKey key;
    ByteBuffer out;
    long scheduled;
    boolean connected;

    Connection(SocketChannel channel) {
      this.channel = channel;
    }

    void send(byte[] request, long scheduledNanos) throws IOException {
      out = ByteBuffer.wrap(request);
      scheduled = scheduledNanos;
      in.clear();
      if (connected) {
        write();
      }
    }

    private void write() throws IOException {
      channel.write(out);
      key.interestOps(out.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
    }

    void ready(SelectionKey ready, Answers answers, long[] answered) {
      try {
        if (ready.isConnectable()) {
          channel.finishConnect();
          connected = true;
          if (out != null) {
            write();
          } else {
            ready.interestOps(SelectionKey.OP_READ);
            idle.add(this);
          }
          return;
        }
        if (ready.isWritable()) {
          write();
          return;
        }
        if (out == null) {
          // Idle, yet readable: the server closed it (or spoke out of turn).
          idle.remove(this);
          drop();
          return;
        }
        if (ready.isReadable() && read()) {
          out = null;
          int status = status();
          boolean close = closes(indexOf(HEAD_END));
          answered[0]++;
          answers.answered(status, scheduled);
          if (close) {
            drop();
          } else {
            idle.add(this);
          }
        }
      } catch (IOException failed) {
        if (out != null) {
          out = null;
          answered[0]++;
          answers.answered(-1, scheduled);
        }
        drop();
      }
    }

    private void drop() {
      key.cancel();
      try {
        channel.close();
      } catch (IOException ignored) {
        // Closing a socket that failed has nothing left to report.
      }
      open--;
    }

    /** Reads what has come; true once a whole answer (head and Content-Length body) is in. */
    private boolean read() throws IOException {
      if (channel.read(in) < 0) {
        throw new IOException("the server closed the connection");
      }
      int headEnd = indexOf(HEAD_END);
      if (headEnd < 0) {
        if (!in.hasRemaining()) {
          throw new IOException("an answer's head is larger than " + in.capacity() + " bytes");
        }
        return false;
      }
      long length = contentLength(headEnd);
      return in.position() >= headEnd + HEAD_END.length + length;
    }

    private int status() {
      // "HTTP/1.1 200 ..."
      return (in.get(9) - '0') * 100 + (in.get(10) - '0') * 10 + (in.get(11) - '0');
    }

    /** Whether the head up to {@code headEnd} has a {@code Connection: close} line. */
    private boolean closes(int headEnd) {
      int value = valueOf(CONNECTION, headEnd);
      while (value >= 0 && value < headEnd && in.get(value) == ' ') {
        value++;
      }
      return value >= 0 && startsWithIgnoringCase(value, CLOSE, headEnd);
    }

    private long contentLength(int headEnd) throws IOException {
      int at = valueOf(CONTENT_LENGTH, headEnd);
      if (at < 0) {
        throw new IOException("an answer without Content-Length");
      }
      long length = 0;
      while (at < headEnd && in.get(at) == ' ') {
        at++;
      }
      while (at < headEnd && in.get(at) >= '0' && in.get(at) <= '9') {
        length = length * 10 + in.get(at++) - '0';
      }
      return length;
    }

    /** Where the value of header {@code name} ("name:", lower case) starts, or -1. */
    private int valueOf(byte[] name, int headEnd) {
      for (int line = 0; line < headEnd; ) {
        int next = line;
        while (next < headEnd && in.get(next) != '\n') {
          next++;
        }
        next++;
        if (line > 0 && startsWithIgnoringCase(line, name, headEnd)) {
          return line + name.length;
        }
        line = next;
      }
      return -1;
    }

    private boolean startsWithIgnoringCase(int at, byte[] lowerCase, int headEnd) {
      if (at + lowerCase.length > headEnd) {
        return false;
      }
      for (int i = 0; i < lowerCase.length; i++) {
        byte b = in.get(at + i);
        if ((b >= 'A' && b <= 'Z' ? b + 32 : b) != lowerCase[i]) {
          return false;
        }
      }
      return true;
    }

    private int indexOf(byte[] pattern) {
      int limit = in.position() - pattern.length;
      for (int i = 0; i <= limit; i++) {
        int j = 0;
        while (j < pattern.length && in.get(i + j) == pattern[j]) {
          j++;
        }
        if (j == pattern.length) {
          return i;
        }
      }
      return -1;
    }
  }
}
