package dev.lvg.feed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * A Server-Sent Events reader over a plain HTTP connection: one message at a time (its event name,
 * id and data), comments counted apart.
 */
final class Sse implements AutoCloseable {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** One message: {@code event} is "message" unless named. */
  record Message(String event, String id, String data) {
    JsonNode json() {
      try {
        return MAPPER.readTree(data);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  final int status;
  final String contentType;
  final String contentEncoding;
  private final HttpURLConnection connection;
  private final BufferedReader reader;
  int comments;

  /** Opens {@code url} with {@code apiKey}, resuming after {@code lastEventId} when not null. */
  Sse(String url, String apiKey, String lastEventId) throws IOException {
    this(url, apiKey, lastEventId, 30_000);
  }

  /** As above; a read that waits longer than {@code timeoutMillis} throws. */
  Sse(String url, String apiKey, String lastEventId, int timeoutMillis) throws IOException {
    this(url, "x-api-key", apiKey, lastEventId, timeoutMillis);
  }

  /** Opens {@code url} with the credential {@code header}: {@code value}. */
  Sse(String url, String header, String value, String lastEventId, int timeoutMillis)
      throws IOException {
    connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
    connection.setRequestProperty(header, value);
    connection.setRequestProperty("Accept", "text/event-stream");
    connection.setRequestProperty("Accept-Encoding", "gzip");
    if (lastEventId != null) {
      connection.setRequestProperty("Last-Event-ID", lastEventId);
    }
    connection.setReadTimeout(timeoutMillis);
    status = connection.getResponseCode();
    contentType = connection.getContentType();
    java.io.InputStream body =
        status == 200 ? connection.getInputStream() : connection.getErrorStream();
    // The stream itself must come uncompressed (events would wait in a compressor); a refusal may
    // be compressed like any other answer.
    if ("gzip".equals(connection.getContentEncoding())) {
      body = new java.util.zip.GZIPInputStream(body);
    }
    contentEncoding = connection.getContentEncoding();
    reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
  }

  /** The whole body of a refusal. */
  String errorBody() throws IOException {
    StringBuilder body = new StringBuilder();
    for (String line = reader.readLine(); line != null; line = reader.readLine()) {
      body.append(line);
    }
    return body.toString();
  }

  /** Reads until a comment line comes (answers true) or the stream ends (false). */
  boolean nextComment() throws IOException {
    for (String line = reader.readLine(); line != null; line = reader.readLine()) {
      if (line.startsWith(":")) {
        comments++;
        return true;
      }
    }
    return false;
  }

  /** The next message, or null at the end of the stream. */
  Message next() throws IOException {
    String event = "message";
    String id = null;
    StringBuilder data = null;
    for (String line = reader.readLine(); line != null; line = reader.readLine()) {
      if (line.isEmpty()) {
        if (data != null) {
          return new Message(event, id, data.toString());
        }
        event = "message";
        id = null;
        continue;
      }
      if (line.startsWith(":")) {
        comments++;
      } else if (line.startsWith("event: ")) {
        event = line.substring(7);
      } else if (line.startsWith("id: ")) {
        id = line.substring(4);
      } else if (line.startsWith("data: ")) {
        data = data == null ? new StringBuilder() : data.append('\n');
        data.append(line.substring(6));
      }
    }
    return null;
  }

  @Override
  public void close() {
    connection.disconnect();
  }
}
