package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A corpus of malformed and edge-case requests sent over raw sockets to a finalizing gateway: bad
 * JSON, huge and negative numbers, tricks in ids and in {@code manifest_path}, broken framing,
 * oversized heads and bodies, slow senders, pipelining, bytes that are not HTTP. Every answer must
 * be under 500, every 4xx must carry the JSON error body with the code that goes with its status,
 * nothing may hang, and the gateway must serve normally afterwards.
 */
class HostileInputIT {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** The spec codes each error status may carry. */
  private static final Map<Integer, Set<Integer>> CODES =
      Map.of(
          400, Set.of(13),
          401, Set.of(16),
          403, Set.of(15),
          404, Set.of(1, 4, 8, 10, 11, 22),
          406, Set.of(0),
          408, Set.of(13),
          409, Set.of(2, 3, 5, 9, 14, 23),
          413, Set.of(13),
          414, Set.of(13),
          431, Set.of(13));

  private static TestGateway gw;
  private static String key;
  private static String location;

  @BeforeAll
  static void start() throws Exception {
    gw =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL", TestGateway.shared().databaseUrl(),
                "LVG_MANIFEST_MODE", "finalize",
                "LVG_HTTP_HEAD_TIMEOUT_MS", "1000",
                "LVG_HTTP_IDLE_TIMEOUT_MS", "1000",
                "LVG_HTTP_BODY_TIMEOUT_MS", "1000",
                "LVG_MAX_BODY_BYTES", "65536"));
    key = gw.newTenant("hostile");
    Api api = gw.api(key);
    api.declare("ns", "t");
    location = api.post("/v1/table/ns%24t/describe", "{}").assertOk().get("location").asText();
    Files.createDirectories(Path.of(location, "_versions"));
  }

  @AfterAll
  static void stop() {
    gw.gateway.close();
  }

  /** One request of the corpus: its bytes, how many answers it should get, how it is sent. */
  private record Case(String name, byte[] bytes, int answers, boolean slowly, boolean bodiless) {
    Case(String name, byte[] bytes, int answers, boolean slowly) {
      this(name, bytes, answers, slowly, false);
    }
  }

  private static Case request(String name, String method, String target, String body) {
    return request(name, method, target, "Content-Type: application/json\r\n", body);
  }

  private static Case request(
      String name, String method, String target, String headers, String body) {
    byte[] bodyBytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    String head =
        method
            + " "
            + target
            + " HTTP/1.1\r\nHost: gateway\r\nConnection: close\r\nx-api-key: "
            + key
            + "\r\n"
            + headers
            + (body == null ? "" : "Content-Length: " + bodyBytes.length + "\r\n")
            + "\r\n";
    return new Case(
        name,
        concat(head.getBytes(StandardCharsets.UTF_8), bodyBytes),
        1,
        false,
        method.equals("HEAD"));
  }

  private static Case raw(String name, byte[] bytes) {
    return new Case(name, bytes, 1, false);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] joined = new byte[a.length + b.length];
    System.arraycopy(a, 0, joined, 0, a.length);
    System.arraycopy(b, 0, joined, a.length, b.length);
    return joined;
  }

  private static String create(String version, String path) {
    return "{\"version\":" + version + ",\"manifest_path\":" + path + "}";
  }

  private static String quoted(String text) {
    try {
      return MAPPER.writeValueAsString(text);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<Case> corpus() {
    List<Case> cases = new ArrayList<>();
    String create = "/v1/table/ns%24t/version/create";
    String staging = quoted(location.substring(1) + "/_versions/1.manifest-x");

    // Bodies that are not JSON, not an object, or malformed JSON.
    String[] notJson = {
      "",
      "{",
      "}",
      "[]",
      "[",
      "\"x\"",
      "1",
      "true",
      "nul",
      "{\"version\":}",
      "{\"version\":1,}",
      "{'version':1}",
      "{\"version\":1} trailing",
      "{\"version\" 1}",
      "{\"a\":\"\\u12\"}",
      "\u00ef\u00bb\u00bf{}",
      "{\"version\":1,\"manifest_path\":\"a\u0000b\"}",
      "{\"\ud800\":1}",
      "[".repeat(100_000),
      "{\"a\":".repeat(20_000),
      "{\"version\":01}",
      "{\"version\":+1}",
      "{\"version\":0x10}",
      "{\"version\":NaN}",
      "{\"version\":Infinity}",
      "\u0000\u0000",
    };
    for (String body : notJson) {
      cases.add(request("not json: " + abbreviate(body), "POST", create, body));
    }
    // Valid JSON, wrong values.
    String[] versions = {
      "-1",
      "-9223372036854775808",
      "9223372036854775808",
      "99999999999999999999999999",
      "1e400",
      "1.5",
      "1e3",
      "\"1\"",
      "[1]",
      "{}",
      "true",
      "null",
      "-0.0",
      "18446744073709551616",
    };
    for (String version : versions) {
      cases.add(request("version " + version, "POST", create, create(version, staging)));
    }
    String[] paths = {
      "\"\"",
      "1",
      "[]",
      "{}",
      "true",
      quoted("../../etc/passwd"),
      quoted("/etc/passwd"),
      quoted("etc/passwd"),
      quoted(location.substring(1) + "/_versions/../../../etc/passwd"),
      quoted(location.substring(1) + "/_versions/..%2f..%2fetc"),
      quoted(location.substring(1) + "/_versions/"),
      quoted(location.substring(1) + "/_versions/."),
      quoted(location.substring(1) + "/_versions/.."),
      quoted("file:///etc/passwd"),
      quoted("s3://other-bucket/x/_versions/1.manifest"),
      quoted(location.substring(1) + "/_versions/a\\..\\..\\x"),
      quoted(location.substring(1) + "/_versions/1.manifest\u0000.txt"),
      quoted(location.substring(1) + "/../other.lance/_versions/1.manifest"),
      quoted(location.substring(1) + "/_versions/missing.manifest"),
      quoted("~/_versions/1.manifest"),
      quoted(location.substring(1) + "/x".repeat(3000)),
      quoted(location.substring(1) + "/_versions/\u202e1.manifest"),
    };
    for (String path : paths) {
      cases.add(request("manifest_path " + abbreviate(path), "POST", create, create("1", path)));
    }
    String[] otherFields = {
      "\"manifest_size\":-1",
      "\"manifest_size\":\"x\"",
      "\"manifest_size\":1e30",
      "\"metadata\":[]",
      "\"metadata\":{\"a\":1}",
      "\"metadata\":\"x\"",
      "\"naming_scheme\":\"V3\"",
      "\"naming_scheme\":1",
      "\"branch\":\"\"",
      "\"branch\":\"../x\"",
      "\"branch\":7",
      "\"context\":[1]",
      "\"e_tag\":{}",
    };
    for (String field : otherFields) {
      cases.add(
          request(
              "field " + field,
              "POST",
              create,
              "{\"version\":1,\"manifest_path\":" + staging + "," + field + "}"));
    }

    // Ids: encodings, traversal, delimiters, sizes; on three operations.
    String[] ids = {
      "%00",
      "%2F",
      "a%2Fb",
      "%2e%2e",
      "..",
      ".",
      "%2e",
      "%C3%A9",
      "%C0%AF",
      "%FF",
      "%E2%82",
      "a%24",
      "%24a",
      "%24%24",
      "%24",
      "%5C",
      "%0A",
      "%0D%0Ax-injected:%201",
      "%20",
      "+",
      ";",
      "ns%24t%3Fx",
      "a".repeat(5000),
      "a%24".repeat(100) + "a",
      "%F0%9F%98%80%24t",
      "ns%24t?delimiter=",
      "ns%24t?delimiter=%24%24",
      "ns.t?delimiter=.",
      "ns%24t?delimiter=%00",
      "ns%24t?delimiter=%25",
      "ns%24t?delimiter=a&delimiter=b",
    };
    for (String id : ids) {
      String path = id.contains("?") ? id.substring(0, id.indexOf('?')) : id;
      String query = id.contains("?") ? id.substring(id.indexOf('?')) : "";
      cases.add(
          request(
              "describe " + abbreviate(id),
              "POST",
              "/v1/table/" + path + "/describe" + query,
              "{}"));
      cases.add(
          request(
              "list " + abbreviate(id),
              "POST",
              "/v1/table/" + path + "/version/list" + query,
              "{}"));
      cases.add(
          request(
              "create " + abbreviate(id),
              "POST",
              "/v1/table/" + path + "/version/create" + query,
              create("1", staging)));
    }

    // HTTP itself: methods, routes, headers, framing.
    for (String method : List.of("GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD")) {
      cases.add(request("method " + method, method, create, null));
    }
    cases.add(request("unknown route", "POST", "/v1/nothing/here", "{}"));
    cases.add(request("root", "GET", "/", null));
    cases.add(request("absolute-form target", "POST", "http://evil.example" + create, "{}"));
    cases.add(request("asterisk target", "OPTIONS", "*", null));
    cases.add(request("text/plain", "POST", create, "Content-Type: text/plain\r\n", "{}"));
    cases.add(request("no content type", "POST", create, "", "{}"));
    cases.add(
        request(
            "multipart",
            "POST",
            create,
            "Content-Type: multipart/form-data; boundary=x\r\n",
            "--x\r\n\r\n{}\r\n--x--"));
    cases.add(
        request(
            "charset latin1",
            "POST",
            create,
            "Content-Type: application/json; charset=latin1\r\n",
            "{}"));
    cases.add(
        request(
            "gzip body claimed",
            "POST",
            create,
            "Content-Type: application/json\r\nContent-Encoding: gzip\r\n",
            "{}"));
    cases.add(request("oversized body", "POST", create, "{\"a\":\"" + "x".repeat(70_000) + "\"}"));
    cases.add(
        request("oversized header", "POST", create, "X-Big: " + "a".repeat(20_000) + "\r\n", "{}"));
    cases.add(
        request(
            "a thousand headers",
            "POST",
            create,
            "X-H: 1\r\n".repeat(1000) + "Content-Type: application/json\r\n",
            "{}"));
    cases.add(
        request(
            "long request line", "POST", "/v1/table/" + "a".repeat(20_000) + "/describe", "{}"));
    cases.add(
        request(
            "no api key",
            "POST",
            create,
            "Content-Type: application/json\r\nx-api-key:\r\n",
            "{}"));
    cases.add(
        request(
            "bearer garbage",
            "POST",
            "/v1/namespace/list",
            "Authorization: Bearer a.b.c\r\n",
            "{}"));
    cases.add(
        request(
            "obs-fold header",
            "POST",
            create,
            "X-Folded: a\r\n b\r\nContent-Type: application/json\r\n",
            "{}"));
    cases.add(
        request(
            "expect continue",
            "POST",
            create,
            "Content-Type: application/json\r\nExpect: 100-continue\r\n",
            "{}"));
    cases.add(
        request(
            "expect other",
            "POST",
            create,
            "Content-Type: application/json\r\nExpect: 200-ok\r\n",
            "{}"));
    String head = "POST " + create + " HTTP/1.1\r\nHost: g\r\nx-api-key: " + key + "\r\n";
    cases.add(
        raw(
            "content-length longer than body",
            (head + "Content-Length: 100\r\n\r\n{}").getBytes()));
    cases.add(raw("content-length negative", (head + "Content-Length: -5\r\n\r\n{}").getBytes()));
    cases.add(
        raw("content-length not a number", (head + "Content-Length: ten\r\n\r\n{}").getBytes()));
    cases.add(
        raw(
            "two content-lengths",
            (head + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}x").getBytes()));
    cases.add(
        raw(
            "chunked and length",
            (head + "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
                .getBytes()));
    cases.add(
        raw(
            "chunked bad size",
            (head + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n").getBytes()));
    cases.add(
        raw(
            "chunked huge size",
            (head + "Transfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n{}\r\n").getBytes()));
    cases.add(
        raw(
            "chunked good",
            (head
                    + "Connection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
                .getBytes()));
    cases.add(
        raw("unknown transfer coding", (head + "Transfer-Encoding: zip\r\n\r\n{}").getBytes()));
    cases.add(
        raw(
            "http/1.0",
            ("POST /v1/table/ns%24t/describe HTTP/1.0\r\nx-api-key: "
                    + key
                    + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
                .getBytes()));
    cases.add(raw("http/0.9", "GET /v1/namespace/list\r\n".getBytes()));
    cases.add(raw("http/2.0 in an http/1 line", "GET / HTTP/2.0\r\n\r\n".getBytes()));
    cases.add(raw("http/3 version", "GET / HTTP/3\r\n\r\n".getBytes()));
    cases.add(raw("h2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes()));
    cases.add(raw("tls client hello", HexFormat.of().parseHex("16030100a5010000a10303")));
    cases.add(raw("ssh banner", "SSH-2.0-OpenSSH_9.0\r\n".getBytes()));
    cases.add(raw("blank lines", "\r\n\r\n\r\n\r\n".getBytes()));
    cases.add(raw("lone method", "GET\r\n\r\n".getBytes()));
    cases.add(raw("binary", HexFormat.of().parseHex("00ff00ff7f8081fe0d0a0d0a")));
    cases.add(
        raw(
            "lf only",
            ("POST /v1/namespace/list HTTP/1.1\nHost: g\nConnection: close\nx-api-key: "
                    + key
                    + "\n\n")
                .getBytes()));
    cases.add(raw("space in target", "GET /v1/a b HTTP/1.1\r\nHost: g\r\n\r\n".getBytes()));
    cases.add(
        raw(
            "nul in header",
            ("GET /v1/namespace/list HTTP/1.1\r\nHost: g\u0000x\r\nConnection: close\r\n\r\n")
                .getBytes()));
    cases.add(raw("header without colon", "GET / HTTP/1.1\r\nHost g\r\n\r\n".getBytes()));
    byte[] describe =
        ("POST /v1/table/ns%24t/describe HTTP/1.1\r\nHost: g\r\nx-api-key: "
                + key
                + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
            .getBytes();
    byte[] last =
        ("POST /v1/table/ns%24t/describe HTTP/1.1\r\nHost: g\r\nConnection: close\r\nx-api-key: "
                + key
                + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
            .getBytes();
    cases.add(new Case("three pipelined", concat(concat(describe, describe), last), 3, false));
    cases.add(new Case("a body sent slowly in time", last, 1, true));
    return cases;
  }

  private static String abbreviate(String text) {
    return text.length() > 40 ? text.substring(0, 40) + "..." : text;
  }

  @Test
  void everyHostileRequestGetsA4xxWithItsCodeOrACleanCloseAndNothingHangs() throws Exception {
    List<Case> cases = corpus();
    assertThat(cases).hasSizeGreaterThanOrEqualTo(200);
    List<String> failures = new ArrayList<>();
    int answered = 0;
    for (Case c : cases) {
      try {
        for (Answer answer : exchange(c)) {
          answered++;
          String problem = answer.problem();
          if (problem != null) {
            failures.add(c.name() + ": " + problem);
          }
        }
      } catch (SocketTimeoutException e) {
        failures.add(c.name() + ": no answer and no close within 10 s");
      }
    }
    assertThat(failures).isEmpty();
    assertThat(answered).isGreaterThan(cases.size() / 2);
    Api api = gw.api(key);
    api.post("/v1/table/ns%24t/describe", "{}").assertOk();
    assertThat(
            Api.send(
                    java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create(gw.managementUrl + "/health/ready"))
                        .build())
                .status())
        .isEqualTo(200);
  }

  /** One answer: its status and body. */
  private record Answer(int status, String body) {
    String problem() {
      if (status >= 500) {
        return "answered " + status + ": " + body;
      }
      if (status < 400 || body == null) {
        return null;
      }
      JsonNode json;
      try {
        json = MAPPER.readTree(body);
      } catch (IOException e) {
        return status + " without a JSON body: " + body;
      }
      Set<Integer> codes = CODES.get(status);
      if (codes == null
          || !json.path("code").isInt()
          || !codes.contains(json.get("code").asInt())) {
        return status + " with code " + json.path("code") + ": " + body;
      }
      return null;
    }
  }

  /**
   * Sends a case on a fresh connection and reads its answers until they are all in or it closes.
   */
  private static List<Answer> exchange(Case c) throws IOException {
    List<Answer> answers = new ArrayList<>();
    try (Socket socket = new Socket("127.0.0.1", gw.gateway.apiPort())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      try {
        if (c.slowly()) {
          for (int i = 0; i < c.bytes().length; i += 16) {
            out.write(c.bytes(), i, Math.min(16, c.bytes().length - i));
            out.flush();
            Thread.sleep(20);
          }
        } else {
          out.write(c.bytes());
        }
      } catch (IOException closedWhileSending) {
        // The gateway refused before reading everything: what it answered still counts.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
      InputStream in = socket.getInputStream();
      while (answers.size() < c.answers()) {
        Answer answer = readAnswer(in, c.bodiless());
        if (answer == null) {
          break;
        }
        if (answer.status() != 100) {
          answers.add(answer);
        }
      }
    } catch (SocketTimeoutException e) {
      throw e;
    } catch (IOException reset) {
      // A reset is a close.
    }
    return answers;
  }

  /** One HTTP response, or null when the connection closed before one began. */
  private static Answer readAnswer(InputStream in, boolean bodiless) throws IOException {
    String head = readHead(in);
    if (head == null) {
      return null;
    }
    String[] lines = head.split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    long length = 0;
    boolean chunked = false;
    for (String line : lines) {
      String lower = line.toLowerCase(Locale.ROOT);
      if (lower.startsWith("content-length:")) {
        length = Long.parseLong(lower.substring(15).trim());
      } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
        chunked = true;
      }
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if (bodiless) {
      // The answer to HEAD has the head of the answer to GET and no body to check.
      return new Answer(status, null);
    } else if (chunked) {
      for (long size; (size = Long.parseLong(readLine(in).trim(), 16)) > 0; ) {
        body.write(in.readNBytes((int) size));
        readLine(in);
      }
      readLine(in);
    } else if (status != 100 && status != 204 && status != 304) {
      body.write(in.readNBytes((int) length));
    }
    return new Answer(status, body.toString(StandardCharsets.UTF_8));
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    for (int b; (b = in.read()) >= 0; ) {
      head.write(b);
      matched = (b == '\r' || b == '\n') && "\r\n\r\n".charAt(matched) == b ? matched + 1 : 0;
      if (matched == 4) {
        return head.toString(StandardCharsets.ISO_8859_1);
      }
    }
    return null;
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int b; (b = in.read()) >= 0 && b != '\n'; ) {
      if (b != '\r') {
        line.append((char) b);
      }
    }
    return line.toString();
  }
}
