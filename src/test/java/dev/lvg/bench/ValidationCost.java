package dev.lvg.bench;

import dev.lvg.http.ContractValidation;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.json.schema.JsonSchema;
import io.vertx.json.schema.Validator;
import io.vertx.openapi.contract.OpenAPIContract;
import io.vertx.openapi.validation.RequestValidator;
import io.vertx.openapi.validation.impl.RequestParameterImpl;
import io.vertx.openapi.validation.impl.ValidatableRequestImpl;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What checking one {@code version/create} body against the spec's schema costs (CPU time of the
 * calling thread; for vertx-openapi's validator also the elapsed time, as it completes its answer
 * through Vert.x): through vertx-openapi's {@code RequestValidator} (which makes the schema
 * validators on every call), through a validator made once per operation (what the gateway does),
 * and decoding the body alone. {@code bench/validation.sh [requests per round]}; prints a line per
 * way, from the last of 5 rounds (the first ones warm the JIT up).
 */
public final class ValidationCost {
  private static final String BODY =
      "{\"version\":12,\"manifest_path\":\"/data/tables/demo/ns1/t.lance/_versions/.tmp_12_1a2b3c\","
          + "\"manifest_size\":4096,\"naming_scheme\":\"V2\",\"metadata\":{\"k\":\"v\"}}";

  private ValidationCost() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    Vertx vertx = Vertx.vertx();
    try {
      OpenAPIContract contract =
          OpenAPIContract.from(vertx, ContractValidation.specDocument("bench"))
              .toCompletionStage()
              .toCompletableFuture()
              .get(60, TimeUnit.SECONDS);
      RequestValidator perCall = RequestValidator.create(vertx, contract);
      Buffer body = Buffer.buffer(BODY);
      JsonSchema schema =
          contract
              .operation("CreateTableVersion")
              .getRequestBody()
              .getContent()
              .get("application/json")
              .getSchema();
      Validator once = contract.getSchemaRepository().validator(schema);
      ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
      double[] micros = new double[3];
      double perCallWall = 0;
      for (int round = 0; round < 5; round++) {
        long wall = System.nanoTime();
        long t0 = cpu.getCurrentThreadCpuTime();
        for (int i = 0; i < n; i++) {
          perCall
              .validate(
                  new ValidatableRequestImpl(
                      Map.of(),
                      Map.of(),
                      Map.of("id", new RequestParameterImpl("ns1$t")),
                      Map.of(),
                      new RequestParameterImpl(body),
                      "application/json"),
                  "CreateTableVersion")
              .toCompletionStage()
              .toCompletableFuture()
              .get();
        }
        long t1 = cpu.getCurrentThreadCpuTime();
        perCallWall = (System.nanoTime() - wall) / 1e3 / n;
        for (int i = 0; i < n; i++) {
          once.validate(new JsonObject(body)).checkValidity();
        }
        long t2 = cpu.getCurrentThreadCpuTime();
        for (int i = 0; i < n; i++) {
          new JsonObject(body);
        }
        long t3 = cpu.getCurrentThreadCpuTime();
        micros[0] = (t1 - t0) / 1e3 / n;
        micros[1] = (t2 - t1) / 1e3 / n;
        micros[2] = (t3 - t2) / 1e3 / n;
      }
      System.out.printf(
          "RequestValidator (validators made per call): %.1f us CPU of the calling thread, %.1f us"
              + " elapsed a request%n",
          micros[0], perCallWall);
      System.out.printf("validator made once per operation: %.1f us CPU a request%n", micros[1]);
      System.out.printf("decoding the body alone: %.1f us CPU a request%n", micros[2]);
    } finally {
      vertx.close();
    }
  }
}
