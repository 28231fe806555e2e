package dev.lvg;

import dev.lvg.catalog.TableDrops;
import dev.lvg.config.GatewayConfig;
import dev.lvg.storage.CredentialVendor;
import dev.lvg.storage.DeadlineStore;
import dev.lvg.storage.LocalFileStore;
import dev.lvg.storage.Manifests;
import dev.lvg.storage.ObjectStore;
import dev.lvg.storage.S3Store;
import dev.lvg.storage.StorageRoot;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.time.Clock;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Where the gateway keeps table data: the storage root's object store (local disk, or an S3 bucket
 * through the gateway's own client) behind its deadlines, the manifests written there, the
 * background deletion of dropped tables, and the vendor of the scoped credentials tenants get for
 * it.
 */
record GatewayStorage(
    S3AsyncClient s3, CredentialVendor vendor, Manifests manifests, TableDrops drops)
    implements AutoCloseable {

  static GatewayStorage open(
      Vertx vertx, Pool pool, GatewayConfig config, MeterRegistry registry, Clock clock) {
    StorageRoot root = config.storageRoot();
    long timeoutMillis = config.deadlines().storageTimeoutMillis();
    S3AsyncClient s3 = root.isLocal() ? null : config.s3().client();
    CredentialVendor vendor =
        CredentialVendor.forRoot(vertx, config.s3(), root, clock, timeoutMillis);
    ObjectStore store =
        new DeadlineStore(
            root.isLocal()
                ? LocalFileStore.forRoot(vertx, root, config.groupSync())
                : new S3Store(vertx, s3, root.bucket()),
            timeoutMillis,
            registry);
    return new GatewayStorage(
        s3,
        vendor,
        new Manifests(root, store, config.finalizeManifests()),
        new TableDrops(pool, root, store));
  }

  /** Closes the clients; the object store's files and objects stay as they are. */
  @Override
  public void close() {
    if (s3 != null) {
      s3.close();
    }
    if (vendor != null) {
      vendor.close();
    }
  }
}
