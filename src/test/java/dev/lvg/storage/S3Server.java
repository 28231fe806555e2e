package dev.lvg.storage;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.util.Map;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3BaseClientBuilder;
import software.amazon.awssdk.services.s3.S3Client;

/** A real S3 server for the tests (s3proxy over an in-memory blob store) with one bucket. */
final class S3Server implements AutoCloseable {
  static final String ACCESS_KEY = "lvg-test-access";
  static final String SECRET_KEY = "lvg-test-secret-key";
  static final String BUCKET = "lvg-test";

  final String endpoint;
  final S3Client client;
  private final S3Proxy proxy;
  private final BlobStoreContext blobs;

  S3Server() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    endpoint = "http://127.0.0.1:" + port;
    blobs = ContextBuilder.newBuilder("transient").build(BlobStoreContext.class);
    proxy =
        S3Proxy.builder()
            .blobStore(blobs.getBlobStore())
            .endpoint(URI.create(endpoint))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .build();
    proxy.start();
    long deadline = System.currentTimeMillis() + 30_000;
    while (!AbstractLifeCycle.STARTED.equals(proxy.getState())) {
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("s3proxy did not start: " + proxy.getState());
      }
      Thread.sleep(10);
    }
    client = configured(S3Client.builder().httpClient(UrlConnectionHttpClient.create())).build();
    client.createBucket(create -> create.bucket(BUCKET));
  }

  /** An async client for this server, set up as the gateway sets up its own. */
  S3AsyncClient asyncClient() {
    return configured(S3AsyncClient.builder()).build();
  }

  /**
   * Endpoint, region, path-style addressing, checksums only where required, and this server's keys.
   */
  private <B extends S3BaseClientBuilder<B, ?>> B configured(B builder) {
    return builder
        .endpointOverride(URI.create(endpoint))
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)));
  }

  /** Gateway settings that put table locations in this server's bucket under {@code prefix}. */
  Map<String, String> gatewaySettings(String prefix) {
    return Map.of(
        "LVG_STORAGE_ROOT",
        "s3://" + BUCKET + "/" + prefix,
        "LVG_S3_ENDPOINT",
        endpoint,
        "LVG_S3_REGION",
        "us-east-1",
        "LVG_S3_PATH_STYLE",
        "true",
        "LVG_S3_ACCESS_KEY_ID",
        ACCESS_KEY,
        "LVG_S3_SECRET_ACCESS_KEY",
        SECRET_KEY,
        "LVG_MANIFEST_MODE",
        "finalize");
  }

  /** Takes the server off the network, as an outage would; {@link #close()} still applies. */
  void stopServing() throws Exception {
    proxy.stop();
  }

  @Override
  public void close() throws Exception {
    client.close();
    proxy.stop();
    blobs.close();
  }
}
