package dev.lvg;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The embedded database keeps its data in LVG_DATA_DIR across restarts, and the bootstrap repeats
 * safely.
 */
class RestartIT {

  @Test
  void committedVersionsSurviveARestart() throws Exception {
    Path dataDir = Files.createTempDirectory("lvg-restart-");
    Map<String, String> settings =
        Map.of(
            "LVG_DB_URL", "",
            "LVG_DATA_DIR", dataDir.toString(),
            "LVG_BOOTSTRAP_TENANT", "restart",
            "LVG_BOOTSTRAP_API_KEY", "restart-key");

    TestGateway first = TestGateway.dedicated(settings);
    try {
      Api api = first.api("restart-key");
      api.declare("r", "t");
      api.post("/v1/table/r%24t/version/create", Api.createBody(1, "r/1")).assertOk();
    } finally {
      first.gateway.close();
    }

    TestGateway second = TestGateway.dedicated(settings);
    try {
      Api api = second.api("restart-key");
      assertThat(
              api.post("/v1/table/r%24t/version/describe", "{}")
                  .assertOk()
                  .get("version")
                  .get("manifest_path")
                  .asText())
          .isEqualTo("r/1");
      api.post("/v1/table/r%24t/version/create", Api.createBody(2, "r/2")).assertOk();
    } finally {
      second.gateway.close();
    }
  }
}
