package dev.lvg.storage;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;

/**
 * How to reach an S3-compatible storage root: for the gateway's own client and, as {@code
 * storage_options}, for the writers. Without an access key the gateway uses the AWS default
 * credentials chain. Writers get credentials vended through STS when {@code roleArn} is set ({@link
 * CredentialVendor}); the gateway's own keys only when {@code shareStaticKeys} says so (a sidecar
 * serving one tenant), never by default.
 */
public record S3Settings(
    String endpoint,
    String region,
    boolean pathStyle,
    String accessKeyId,
    String secretAccessKey,
    boolean shareStaticKeys,
    String stsEndpoint,
    String roleArn,
    int vendedSeconds) {

  /** True when writers get credentials vended through STS. */
  public boolean vends() {
    return roleArn != null;
  }

  @Override
  public String toString() {
    return "S3Settings[endpoint="
        + endpoint
        + ", region="
        + region
        + ", pathStyle="
        + pathStyle
        + ", accessKeyId="
        + accessKeyId
        + ", secretAccessKey="
        + (secretAccessKey == null ? null : "***")
        + ", shareStaticKeys="
        + shareStaticKeys
        + ", stsEndpoint="
        + stsEndpoint
        + ", roleArn="
        + roleArn
        + ", vendedSeconds="
        + vendedSeconds
        + "]";
  }

  /** The gateway's own client. */
  public S3AsyncClient client() {
    S3AsyncClientBuilder builder =
        S3AsyncClient.builder()
            .region(Region.of(region))
            .forcePathStyle(pathStyle)
            // Checksum trailers only where S3 requires them: many S3-compatible stores reject them.
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
    if (endpoint != null) {
      builder.endpointOverride(URI.create(endpoint));
    }
    if (accessKeyId != null) {
      builder.credentialsProvider(
          StaticCredentialsProvider.create(
              AwsBasicCredentials.create(accessKeyId, secretAccessKey)));
    }
    return builder.build();
  }

  /**
   * What a Lance writer (object_store) needs that is not secret: endpoint, region, addressing; the
   * gateway's own keys too only when they are shared on purpose.
   */
  public Map<String, String> writerOptions() {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("aws_region", region);
    if (endpoint != null) {
      options.put("aws_endpoint", endpoint);
      options.put("allow_http", Boolean.toString(endpoint.startsWith("http://")));
    }
    options.put("aws_virtual_hosted_style_request", Boolean.toString(!pathStyle));
    if (shareStaticKeys && accessKeyId != null) {
      options.put("aws_access_key_id", accessKeyId);
      options.put("aws_secret_access_key", secretAccessKey);
    }
    return Map.copyOf(options);
  }
}
