package dev.lvg.platform;

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
import java.time.Clock;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Where the gateway keeps table data: the storage root, its object store (local disk, or an S3
 * bucket through the gateway's own client) behind its deadlines, the manifests written there, and
 * the vendor of the scoped credentials tenants get for it.
 */
public record Storage(
    StorageRoot root,
    ObjectStore store,
    S3AsyncClient s3,
    CredentialVendor vendor,
    Manifests manifests)
    implements AutoCloseable {

  public static Storage open(
      Vertx vertx, GatewayConfig config, MeterRegistry registry, Clock clock) {
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
    return new Storage(
        root, store, s3, vendor, new Manifests(root, store, config.finalizeManifests()));
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
