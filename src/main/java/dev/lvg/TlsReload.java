package dev.lvg;

import dev.lvg.config.GatewayConfig;
import dev.lvg.config.TlsSettings;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.file.FileProps;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reloads the TLS files without a restart: the certificate, its key and the client CA are looked at
 * on every run of the {@code tls-reload} job, and when one changed (its time or size) every
 * listening server takes them for its new connections (connections already open keep theirs). A
 * file that cannot be read or used leaves the servers as they were, and is logged.
 */
final class TlsReload {
  private static final Logger LOG = LoggerFactory.getLogger(TlsReload.class);

  private final Vertx vertx;
  private final GatewayConfig config;
  private final Map<HttpServer, Boolean> servers;
  private List<String> seen;

  TlsReload(Vertx vertx, GatewayConfig config, Map<HttpServer, Boolean> servers) {
    this.vertx = vertx;
    this.config = config;
    this.servers = servers;
  }

  /** Looks at the files; when they changed since last time, has every server take them. */
  Future<?> check() {
    TlsSettings tls = config.tlsSettings();
    List<Future<String>> stamps = new ArrayList<>();
    for (Path file : new Path[] {tls.cert(), tls.key(), tls.clientCa()}) {
      if (file != null) {
        stamps.add(
            vertx
                .fileSystem()
                .props(file.toString())
                .map(TlsReload::stamp)
                .otherwise(missing -> "missing"));
      }
    }
    return Future.all(stamps)
        .compose(
            all -> {
              List<String> now = all.list();
              boolean first = seen == null;
              if (first || Objects.equals(now, seen)) {
                seen = now;
                return Future.succeededFuture();
              }
              seen = now;
              return reload();
            });
  }

  private Future<?> reload() {
    HttpServerOptions api = ApiListeners.options(config, false);
    HttpServerOptions admin = ApiListeners.options(config, true);
    List<Future<Boolean>> updates = new ArrayList<>();
    servers.forEach(
        (server, isAdmin) ->
            updates.add(
                server.updateSSLOptions((isAdmin ? admin : api).getSslOptions().copy(), true)));
    return Future.all(updates)
        .onSuccess(
            done -> LOG.info("TLS files changed: {} listeners reloaded them", updates.size()))
        .onFailure(
            failed ->
                LOG.warn(
                    "TLS files changed but cannot be used, the listeners keep the previous ones:"
                        + " {}",
                    failed.getMessage()));
  }

  private static String stamp(FileProps props) {
    return props.lastModifiedTime() + "/" + props.size();
  }
}
