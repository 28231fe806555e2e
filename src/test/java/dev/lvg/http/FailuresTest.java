package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.VertxException;
import io.vertx.core.http.ConnectionPoolTooBusyException;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.net.ConnectException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class FailuresTest {
  private static Failures.Kind kind(Throwable failure) {
    return Failures.classify(failure).kind();
  }

  private static PgException sqlState(String state) {
    return new PgException("message", "ERROR", state, "detail");
  }

  @Test
  void apiErrorsKeepTheirCodeAndTellShedsFromOutages() {
    assertThat(kind(ApiException.invalidInput("x"))).isEqualTo(Failures.Kind.CLIENT);
    assertThat(kind(ApiException.shed("x"))).isEqualTo(Failures.Kind.SHED);
    assertThat(kind(ApiException.unavailable("x"))).isEqualTo(Failures.Kind.UNAVAILABLE);
    assertThat(kind(new ApiException(ErrorCode.INTERNAL, "x"))).isEqualTo(Failures.Kind.INTERNAL);
  }

  @Test
  void aBrokenDatabaseConnectionIsAnOutageNotADefect() {
    for (Throwable outage :
        new Throwable[] {
          ClosedConnectionException.INSTANCE,
          VertxException.noStackTrace("Connection is not active now, current status: CLOSED"),
          new VertxException("Pool closed", true),
          new ConnectException("refused"),
          new TimeoutException("timed out"),
          sqlState("57P01"),
          sqlState("08006"),
          sqlState("53300"),
          sqlState("25006"),
          new DependencyException("storage backend", "put failed", null)
        }) {
      Failures.Failure failure = Failures.classify(outage);
      assertThat(failure.kind()).as(outage.toString()).isEqualTo(Failures.Kind.UNAVAILABLE);
      assertThat(failure.error().errorCode()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE);
    }
  }

  @Test
  void aFullPoolQueueIsAShed() {
    assertThat(kind(new ConnectionPoolTooBusyException("full"))).isEqualTo(Failures.Kind.SHED);
  }

  @Test
  void serializationFailuresAreConflictsAndOtherSqlErrorsDefects() {
    Failures.Failure deadlock = Failures.classify(sqlState("40P01"));
    assertThat(deadlock.error().errorCode()).isEqualTo(ErrorCode.CONCURRENT_MODIFICATION);
    assertThat(kind(sqlState("42P01"))).isEqualTo(Failures.Kind.INTERNAL);
    assertThat(kind(new NullPointerException())).isEqualTo(Failures.Kind.INTERNAL);
  }

  @Test
  void onlyFailuresWithoutAnAnswerLeaveAWritesOutcomeUnknown() {
    assertThat(Failures.outcomeUnknown(ClosedConnectionException.INSTANCE)).isTrue();
    assertThat(Failures.outcomeUnknown(new TimeoutException())).isTrue();
    assertThat(Failures.outcomeUnknown(sqlState("23505"))).isFalse();
    assertThat(Failures.outcomeUnknown(ApiException.conflict("x"))).isFalse();
    assertThat(Failures.outcomeUnknown(new ConnectionPoolTooBusyException("full"))).isFalse();
    assertThat(Failures.outcomeUnknown(new ConnectException("refused"))).isFalse();
  }

  @Test
  void theClientLearnsWhichDependencyFailedButNotTheDetails() {
    ApiException error =
        Failures.classify(new DependencyException("storage backend", "put /secret/path", null))
            .error();
    assertThat(error.getMessage()).contains("storage backend").doesNotContain("/secret/path");
  }

  @Test
  void whatTheHttpDecoderRefusesIsTheClientsMistake() {
    NumberFormatException badChunk = new NumberFormatException("Invalid character in chunk size");
    badChunk.setStackTrace(
        new StackTraceElement[] {
          new StackTraceElement(
              "io.netty.handler.codec.http.HttpObjectDecoder", "getChunkSize", null, 1)
        });
    assertThat(Failures.classify(badChunk).error().errorCode()).isEqualTo(ErrorCode.INVALID_INPUT);
    assertThat(kind(new io.netty.handler.codec.DecoderException("bad")))
        .isEqualTo(Failures.Kind.CLIENT);
    assertThat(kind(new NumberFormatException("ours"))).isEqualTo(Failures.Kind.INTERNAL);
  }

  @Test
  void aNameTheFileSystemCannotEncodeIsTheRequestsMistakeNotAnOutage() {
    Failures.Failure failure =
        Failures.classify(
            new dev.lvg.storage.StorageException(
                "create",
                "/tables/caf\u00e9.lance/_versions/1.manifest",
                new java.nio.file.InvalidPathException(
                    "/tables/caf\u00e9.lance",
                    "Malformed input or input contains unmappable characters")));
    assertThat(failure.kind()).isEqualTo(Failures.Kind.CLIENT);
    assertThat(failure.error().errorCode()).isEqualTo(ErrorCode.INVALID_INPUT);
    assertThat(failure.error().getMessage()).contains("UTF-8 locale");
    assertThat(
            Failures.classify(
                    new dev.lvg.storage.StorageException(
                        "create", "/tables/t.lance", new java.io.IOException("No space left")))
                .kind())
        .as("a real storage failure stays an outage")
        .isEqualTo(Failures.Kind.UNAVAILABLE);
  }
}
