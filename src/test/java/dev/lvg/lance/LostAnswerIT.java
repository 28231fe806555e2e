package dev.lvg.lance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.AnswerDropper;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.namespace.RestNamespace;

/**
 * The answer to a {@code version/create} is lost on its way back (a proxy closes the client's
 * connection after the gateway committed): the client rebases the same Lance transaction onto the
 * version it just made and commits it again. The gateway refuses the second commit, so every row is
 * in the table once, with LanceDB for Node 0.31.0 and with lance-core 7.0.0.
 */
public class LostAnswerIT {
  /** What the gateway answers a client that rebased a lost commit and sent it again. */
  public static final String REFUSAL = "is already committed as version ";

  /**
   * How a writer whose answer was lost may end: it succeeded, it failed with the refusal or with
   * its own report of a commit conflict, or it is still retrying (both clients map every error of
   * {@code version/create} to a commit conflict and retry with growing back-off).
   */
  private static final String OUTCOME =
      "ok|\\{\"ok\":true.*|retrying|.*(" + REFUSAL + "|[Cc]ommit conflict|retries).*";

  private static BufferAllocator allocator;
  private static TestGateway gw;
  private static AnswerDropper dropper;

  @BeforeAll
  static void start() throws Exception {
    allocator = new RootAllocator();
    gw = TestGateway.finalizing();
    dropper = new AnswerDropper(gw.baseUrl);
  }

  @AfterAll
  static void stop() {
    dropper.close();
    allocator.close();
  }

  @Test
  void lanceDbAppendWhoseAnswerIsLostHoldsEveryRowOnce() throws Exception {
    String key = gw.newTenant("lost-lancedb");
    Api api = gw.api(key);
    api.post("/v1/namespace/ns1/create", "{}").assertOk();
    LanceDbNodeIT.node("lost-answer.mjs", gw.baseUrl, key, "create");

    Path log = Files.createTempFile("lost-lancedb-", ".log");
    String outcome =
        loseTheAnswer(
            () -> LanceDbNodeIT.startNode(log, "lost-answer.mjs", dropper.url(), key, "add"), log);

    JsonNode read = LanceDbNodeIT.node("lost-answer.mjs", gw.baseUrl, key, "read");
    assertThat(read.get("ids").toString()).isEqualTo("[1,2,3,4]");
    assertThat(read.get("versions").toString()).isEqualTo("[1,2]");
    assertThat(outcome).as("LanceDB's add").matches(OUTCOME);
    eachTransactionOnce(api, "ns1$lost", 2);
  }

  @Test
  void lanceCoreAppendWhoseAnswerIsLostHoldsEveryRowOnce() throws Exception {
    String key = gw.newTenant("lost-lance");
    Api api = gw.api(key);
    String outcome = lanceCoreAppendLosingTheAnswer(key);
    try (Dataset dataset = open(key)) {
      assertThat(LanceData.ids(dataset)).containsExactly(0L, 1L, 2L, 3L, 4L);
      assertThat(dataset.version()).isEqualTo(2);
    }
    assertThat(outcome).as("lance-core's append").matches(OUTCOME);
    eachTransactionOnce(api, "ns1$events", 2);
  }

  /**
   * The test above without the unique key on a branch's Lance transactions: the rebased commit of
   * the same transaction lands as version 3 and every appended row is there twice, so that test
   * would fail. The key and the rows are put back afterwards.
   */
  @Test
  void withoutTheUniqueKeyTheSameTransactionCommitsTwice() throws Exception {
    String key = gw.newTenant("lost-unkeyed");
    try (Connection db = gw.jdbc();
        Statement sql = db.createStatement()) {
      sql.execute("DROP INDEX table_versions_lance_transaction");
      try {
        String outcome = lanceCoreAppendLosingTheAnswer(key);
        assertThat(outcome).isEqualTo("ok");
        try (Dataset dataset = open(key)) {
          assertThat(LanceData.ids(dataset)).containsExactly(0L, 1L, 2L, 3L, 3L, 4L, 4L);
          assertThat(dataset.version()).isEqualTo(3);
        }
      } finally {
        sql.execute(
            "DELETE FROM table_versions v USING lance_tables t, tenants n"
                + " WHERE v.tenant_id = t.tenant_id AND v.table_id = t.id"
                + " AND t.tenant_id = n.id AND n.name LIKE 'lost-unkeyed-%'");
        sql.execute(
            "CREATE UNIQUE INDEX table_versions_lance_transaction ON table_versions"
                + " (tenant_id, lance_transaction, table_id, branch)"
                + " WHERE lance_transaction IS NOT NULL");
      }
    }
  }

  /**
   * Creates {@code ns1$events} with ids 0 to 2 for the tenant of {@code key}, then appends ids 3
   * and 4 with lance-core in a process of its own whose first answer is lost; answers how it ended.
   */
  private static String lanceCoreAppendLosingTheAnswer(String key) throws Exception {
    gw.api(key).post("/v1/namespace/ns1/create", "{}").assertOk();
    LanceData.write(allocator, namespace(gw.baseUrl, key), WriteParams.WriteMode.CREATE, 0, 3);
    Path log = Files.createTempFile("lost-lance-", ".log");
    return loseTheAnswer(
        () ->
            new ProcessBuilder(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "-cp",
                    System.getProperty("java.class.path"),
                    LanceAppend.class.getName(),
                    dropper.url(),
                    key,
                    "3",
                    "2")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start(),
        log);
  }

  private static RestNamespace namespace(String url, String key) {
    RestNamespace namespace = new RestNamespace();
    namespace.initialize(Map.of("uri", url, "header.x-api-key", key), allocator);
    return namespace;
  }

  /** The tenant's {@code ns1$events} as Lance opens it through the gateway. */
  private static Dataset open(String key) {
    return Dataset.open()
        .allocator(allocator)
        .namespaceClient(namespace(gw.baseUrl, key))
        .tableId(LanceData.TABLE)
        .build();
  }

  /** A writer started by {@code writer}. */
  interface Writer {
    Process start() throws Exception;
  }

  /**
   * Loses the answer to the writer's first {@code version/create}, then waits until the writer
   * finished or its rebased commit of the same transaction was refused twice; a writer still
   * retrying is stopped. Answers how the writer ended: its last line, or "retrying".
   */
  private static String loseTheAnswer(Writer writer, Path log) throws Exception {
    int before = dropper.answers().size();
    int droppedBefore = dropper.dropped();
    dropper.drop("/version/create", 1);
    Process process = writer.start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (process.isAlive() && refusals(before) < 2 && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(dropper.dropped() - droppedBefore).as("answers lost").isEqualTo(1);
      if (process.isAlive()) {
        assertThat(refusals(before))
            .as("the writer retried and was refused; output:%n%s", Files.readString(log))
            .isGreaterThanOrEqualTo(2);
        return "retrying";
      }
      String[] lines = Files.readString(log).strip().split("\n");
      return lines[lines.length - 1];
    } finally {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      dropper.drop("", 0);
    }
  }

  /** How many refusals naming the first commit the proxy passed on since answer {@code from}. */
  private static long refusals(int from) {
    List<AnswerDropper.Answer> answers = dropper.answers();
    return answers.subList(Math.min(from, answers.size()), answers.size()).stream()
        .filter(answer -> answer.status() == 409 && answer.body().contains(REFUSAL + 2))
        .count();
  }

  /**
   * The table has {@code versions} versions, each naming a Lance transaction no other version
   * names, and DescribeTransaction finds each by its uuid, alone and after the table id.
   */
  static void eachTransactionOnce(Api api, String table, int versions) {
    JsonNode listed =
        api.post("/v1/table/" + table.replace("$", "%24") + "/version/list", null)
            .assertOk()
            .get("versions");
    List<String> transactions = new ArrayList<>();
    for (JsonNode version : listed) {
      transactions.add(version.get("metadata").path("lance_transaction_uuid").asText(null));
    }
    assertThat(transactions).as("the Lance transaction of each version").hasSize(versions);
    assertThat(transactions).doesNotContainNull().doesNotHaveDuplicates();
    Set<Long> described = new HashSet<>();
    for (String transaction : transactions) {
      JsonNode alone = api.post("/v1/transaction/" + transaction + "/describe", "{}").assertOk();
      assertThat(alone.get("status").asText()).isEqualTo("Succeeded");
      JsonNode inTable =
          api.post(
                  "/v1/transaction/"
                      + (table + "$" + transaction).replace("$", "%24")
                      + "/describe",
                  "{}")
              .assertOk();
      assertThat(inTable.get("properties")).isEqualTo(alone.get("properties"));
      assertThat(alone.get("properties").get("table").asText()).isEqualTo(table);
      described.add(alone.get("properties").get("version").asLong());
    }
    assertThat(described).hasSize(versions);
    api.post("/v1/transaction/" + UUID.randomUUID() + "/describe", "{}").assertError(404, 10);
  }
}
