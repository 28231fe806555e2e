package dev.lvg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Three gateway processes (the packaged jar) on one PostgreSQL, with writers racing through all of
 * them at once: each version has exactly one winner, identical racers all get 200 and leave one
 * row, of first versions with different numbers exactly one starts the chain, and every 200 is in
 * the database. Racers are held behind a lock on the versions table until every process has a
 * statement waiting, so the races are decided in PostgreSQL.
 */
class ScaleOutIT {
  private static final int PROCESSES = 3;
  private static final int TABLES = 20;
  private static final List<GatewayProcess> processes = new ArrayList<>();
  private static final List<Api> gateways = new ArrayList<>();
  private static TestGateway database;

  @BeforeAll
  static void start() throws Exception {
    database = TestGateway.shared();
    String tenant = "scale-" + UUID.randomUUID().toString().substring(0, 8);
    String key = "key-" + UUID.randomUUID();
    for (int i = 0; i < PROCESSES; i++) {
      GatewayProcess process =
          GatewayProcess.start(
              Map.of(
                  "LVG_DB_URL",
                  database.databaseUrl(),
                  "LVG_BOOTSTRAP_TENANT",
                  tenant,
                  "LVG_BOOTSTRAP_API_KEY",
                  key,
                  "LVG_ADMISSION_MAX_WAIT_MS",
                  "30000"));
      processes.add(process);
      gateways.add(process.api(key));
    }
    gateways.get(0).post("/v1/namespace/s/create", "{}").assertOk();
    for (int t = 0; t < TABLES; t++) {
      gateways.get(t % PROCESSES).post("/v1/table/s%24t" + t + "/declare", "{}").assertOk();
    }
  }

  @AfterAll
  static void stop() throws Exception {
    for (GatewayProcess process : processes) {
      process.stop();
    }
  }

  private static String create(int table) {
    return "/v1/table/s%24t" + table + "/version/create";
  }

  /** Sends every request, each through the next process, behind a lock until all processes wait. */
  private static List<Api.Response> race(List<String[]> requests) throws Exception {
    List<CompletableFuture<Api.Response>> calls = new ArrayList<>();
    try (TableLock lock = new TableLock(database, "table_versions")) {
      for (int i = 0; i < requests.size(); i++) {
        calls.add(gateways.get(i % PROCESSES).postAsync(requests.get(i)[0], requests.get(i)[1]));
      }
      lock.awaitSessionsWaiting(PROCESSES);
    }
    return calls.stream().map(CompletableFuture::join).toList();
  }

  @Test
  void writersRacingThroughThreeProcessesLeaveOneWinnerPerVersionAndLoseNothing() throws Exception {
    List<String[]> different = new ArrayList<>();
    for (int t = 0; t < TABLES; t++) {
      for (int p = 0; p < PROCESSES; p++) {
        different.add(new String[] {create(t), Api.createBody(1, "t" + t + "/1-by-" + p)});
      }
    }
    List<Api.Response> answers = race(different);
    Map<Integer, String> winners = new HashMap<>();
    for (int i = 0; i < answers.size(); i++) {
      int table = i / PROCESSES;
      Api.Response answer = answers.get(i);
      if (answer.status() == 200) {
        assertThat(winners.put(table, answer.json().get("version").get("manifest_path").asText()))
            .as("a second winner for table %d", table)
            .isNull();
      } else {
        answer.assertError(409, 14);
      }
    }
    assertThat(winners).hasSize(TABLES);

    List<String[]> identical = new ArrayList<>();
    for (int t = 0; t < TABLES; t++) {
      for (int copy = 0; copy < 2 * PROCESSES; copy++) {
        identical.add(new String[] {create(t), Api.createBody(2, "t" + t + "/2")});
      }
    }
    List<Api.Response> replays = race(identical);
    Map<Integer, Set<String>> transactions = new HashMap<>();
    for (int i = 0; i < replays.size(); i++) {
      transactions
          .computeIfAbsent(i / (2 * PROCESSES), t -> new HashSet<>())
          .add(replays.get(i).assertOk().get("transaction_id").asText());
    }
    assertThat(transactions.values()).allMatch(ids -> ids.size() == 1);

    for (int t = 0; t < TABLES; t++) {
      JsonNode versions =
          gateways.get(0).post("/v1/table/s%24t" + t + "/version/list", null).assertOk();
      assertThat(versions.get("versions")).hasSize(2);
      assertThat(versions.get("versions").get(0).get("manifest_path").asText())
          .as("every acknowledged commit is in the database")
          .isEqualTo(winners.get(t));
      assertThat(versions.get("versions").get(1).get("manifest_path").asText())
          .isEqualTo("t" + t + "/2");
    }
  }

  @Test
  void firstVersionsWithDifferentNumbersFromThreeProcessesStartOneChain() throws Exception {
    long[] firsts = {1, 3, 5};
    Api api = gateways.get(0);
    for (int t = 0; t < TABLES; t++) {
      api.post("/v1/table/s%24f" + t + "/declare", "{}").assertOk();
      // One round per table, one first version per process: each process's statement is the
      // first of its queue, so all three are in PostgreSQL, waiting, when the lock goes.
      List<String[]> requests = new ArrayList<>();
      for (long first : firsts) {
        requests.add(
            new String[] {"/v1/table/s%24f" + t + "/version/create", Api.createBody(first, "f")});
      }
      List<Api.Response> forTable = race(requests);
      assertThat(forTable.stream().filter(r -> r.status() == 200)).as("table %d", t).hasSize(1);
      forTable.stream().filter(r -> r.status() != 200).forEach(r -> r.assertError(409, 14));
      assertThat(api.post("/v1/table/s%24f" + t + "/version/list", null).assertOk().get("versions"))
          .hasSize(1);
    }
  }
}
