package dev.lvg.operation;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every operation the gateway knows, named once: its {@code operationId}, the contract it comes
 * from, the right a credential needs for it, the CloudEvents type the change feed gives it (null
 * for an operation the feed does not carry) and whether it is the commit path. Routes, rights,
 * admission classes, schema checks, the audit trail's operation names and the feed's event types
 * all come from here; the database's {@code feed_operation} names the same operations the feed
 * carries (a test holds the two together).
 */
public enum GatewayOperation {
  // Namespaces and tables (the Lance Namespace spec).
  CREATE_NAMESPACE("CreateNamespace", Contract.SPEC, Right.MANAGE, "io.lance.namespace.created"),
  LIST_NAMESPACES("ListNamespaces", Contract.SPEC, Right.READ, null),
  DESCRIBE_NAMESPACE("DescribeNamespace", Contract.SPEC, Right.READ, null),
  NAMESPACE_EXISTS("NamespaceExists", Contract.SPEC, Right.READ, null),
  DROP_NAMESPACE("DropNamespace", Contract.SPEC, Right.MANAGE, "io.lance.namespace.dropped"),
  LIST_ALL_TABLES("ListAllTables", Contract.SPEC, Right.READ, null),
  LIST_TABLES("ListTables", Contract.SPEC, Right.READ, null),
  DECLARE_TABLE("DeclareTable", Contract.SPEC, Right.MANAGE, "io.lance.table.declared"),
  REGISTER_TABLE("RegisterTable", Contract.SPEC, Right.MANAGE, "io.lance.table.registered"),
  DESCRIBE_TABLE("DescribeTable", Contract.SPEC, Right.READ, null),
  TABLE_EXISTS("TableExists", Contract.SPEC, Right.READ, null),
  RENAME_TABLE("RenameTable", Contract.SPEC, Right.MANAGE, "io.lance.table.renamed"),
  DEREGISTER_TABLE("DeregisterTable", Contract.SPEC, Right.MANAGE, "io.lance.table.deregistered"),
  DROP_TABLE("DropTable", Contract.SPEC, Right.MANAGE, "io.lance.table.dropped"),
  // Versions.
  CREATE_TABLE_VERSION(
      "CreateTableVersion", Contract.SPEC, Right.WRITE, "io.lance.table.version.created"),
  LIST_TABLE_VERSIONS("ListTableVersions", Contract.SPEC, Right.READ, null),
  DESCRIBE_TABLE_VERSION("DescribeTableVersion", Contract.SPEC, Right.READ, null),
  BATCH_DELETE_TABLE_VERSIONS(
      "BatchDeleteTableVersions", Contract.SPEC, Right.WRITE, "io.lance.table.version.deleted"),
  /** An old version made the latest again: its event is the version it creates. */
  RESTORE_TABLE("RestoreTable", Contract.SPEC, Right.WRITE, null),
  /** A version whose manifest is gone, pruned by the gateway itself when a read finds it. */
  PRUNE_TABLE_VERSION(
      "PruneTableVersion", Contract.NONE, Right.WRITE, "io.lance.table.version.pruned"),
  // Branches and tags.
  CREATE_TABLE_BRANCH(
      "CreateTableBranch", Contract.SPEC, Right.WRITE, "io.lance.table.branch.created"),
  LIST_TABLE_BRANCHES("ListTableBranches", Contract.SPEC, Right.READ, null),
  DELETE_TABLE_BRANCH(
      "DeleteTableBranch", Contract.SPEC, Right.WRITE, "io.lance.table.branch.deleted"),
  CREATE_TABLE_TAG("CreateTableTag", Contract.SPEC, Right.WRITE, "io.lance.table.tag.created"),
  UPDATE_TABLE_TAG("UpdateTableTag", Contract.SPEC, Right.WRITE, "io.lance.table.tag.updated"),
  DELETE_TABLE_TAG("DeleteTableTag", Contract.SPEC, Right.WRITE, "io.lance.table.tag.deleted"),
  LIST_TABLE_TAGS("ListTableTags", Contract.SPEC, Right.READ, null),
  GET_TABLE_TAG_VERSION("GetTableTagVersion", Contract.SPEC, Right.READ, null),
  // Batches and transactions.
  BATCH_CREATE_TABLE_VERSIONS(
      "BatchCreateTableVersions", Contract.SPEC, Right.WRITE, "io.lance.batch.committed"),
  BATCH_COMMIT_TABLES("BatchCommitTables", Contract.SPEC, Right.WRITE, "io.lance.batch.committed"),
  DESCRIBE_TRANSACTION("DescribeTransaction", Contract.SPEC, Right.READ, null),
  // The gateway's own operations for tenants' keys (its own document).
  QUERY_EVENTS("QueryEvents", Contract.OWN, Right.READ, null),
  STREAM_EVENTS("StreamEvents", Contract.OWN, Right.READ, null),
  DESCRIBE_OWN_ADMISSION("DescribeOwnAdmission", Contract.OWN, Right.READ, null),
  DESCRIBE_CALLER("DescribeCaller", Contract.OWN, Right.READ, null),
  // The admin API (its own document).
  CREATE_TENANT("CreateTenant", Contract.OWN, Right.ADMIN, null),
  LIST_TENANTS("ListTenants", Contract.OWN, Right.ADMIN, null),
  DELETE_TENANT("DeleteTenant", Contract.OWN, Right.ADMIN, null),
  DISABLE_TENANT("DisableTenant", Contract.OWN, Right.ADMIN, null),
  ENABLE_TENANT("EnableTenant", Contract.OWN, Right.ADMIN, null),
  ISSUE_KEY("IssueKey", Contract.OWN, Right.ADMIN, null),
  LIST_KEYS("ListKeys", Contract.OWN, Right.ADMIN, null),
  REVOKE_KEY("RevokeKey", Contract.OWN, Right.ADMIN, null),
  CREATE_GRANT("CreateGrant", Contract.OWN, Right.ADMIN, null),
  LIST_GRANTS("ListGrants", Contract.OWN, Right.ADMIN, null),
  DELETE_GRANT("DeleteGrant", Contract.OWN, Right.ADMIN, null),
  LIST_ROLES("ListRoles", Contract.OWN, Right.ADMIN, null),
  ADD_ROLE_MEMBER("AddRoleMember", Contract.OWN, Right.ADMIN, null),
  REMOVE_ROLE_MEMBER("RemoveRoleMember", Contract.OWN, Right.ADMIN, null),
  REGISTER_CERTIFICATE("RegisterCertificate", Contract.OWN, Right.ADMIN, null),
  LIST_CERTIFICATES("ListCertificates", Contract.OWN, Right.ADMIN, null),
  REMOVE_CERTIFICATE("RemoveCertificate", Contract.OWN, Right.ADMIN, null),
  REVOKE_CERTIFICATE("RevokeCertificate", Contract.OWN, Right.ADMIN, null),
  LIST_AUDIT_EVENTS("ListAuditEvents", Contract.OWN, Right.ADMIN, null),
  DESCRIBE_ADMISSION("DescribeAdmission", Contract.OWN, Right.ADMIN, null),
  DESCRIBE_SINKS("DescribeSinks", Contract.OWN, Right.ADMIN, null),
  ADD_SINK_TENANT("AddSinkTenant", Contract.OWN, Right.ADMIN, null),
  REMOVE_SINK_TENANT("RemoveSinkTenant", Contract.OWN, Right.ADMIN, null),
  CREATE_WEBHOOK("CreateWebhook", Contract.OWN, Right.ADMIN, null),
  LIST_WEBHOOKS("ListWebhooks", Contract.OWN, Right.ADMIN, null),
  DELETE_WEBHOOK("DeleteWebhook", Contract.OWN, Right.ADMIN, null),
  ROTATE_WEBHOOK_SECRET("RotateWebhookSecret", Contract.OWN, Right.ADMIN, null),
  ENABLE_WEBHOOK("EnableWebhook", Contract.OWN, Right.ADMIN, null),
  LIST_WEBHOOK_DEAD_LETTERS("ListWebhookDeadLetters", Contract.OWN, Right.ADMIN, null);

  /** Where an operation's method, path and schemas come from. */
  public enum Contract {
    /** The Lance Namespace spec ({@code spec-operations.tsv}). */
    SPEC,
    /** The gateway's own document, {@code gateway-admin.yaml}. */
    OWN,
    /** No contract: an operation the gateway does itself, recorded but never served. */
    NONE
  }

  private static final Map<String, GatewayOperation> BY_ID =
      Arrays.stream(values()).collect(Collectors.toMap(GatewayOperation::id, Function.identity()));

  private final String id;
  private final Contract contract;
  private final Right right;
  private final String eventType;

  GatewayOperation(String id, Contract contract, Right right, String eventType) {
    this.id = id;
    this.contract = contract;
    this.right = right;
    this.eventType = eventType;
  }

  /** Its {@code operationId}, also the operation's name in the audit trail. */
  public String id() {
    return id;
  }

  public Contract contract() {
    return contract;
  }

  /** The right a credential needs for it: {@link Right#ADMIN} for the admin API. */
  public Right right() {
    return right;
  }

  /** The CloudEvents type of its events in the change feed, or null when the feed skips it. */
  public String eventType() {
    return eventType;
  }

  /**
   * Whether it is the commit path, {@code version/create}: the request every Lance commit sends is
   * checked field by field by its own parser (the same 400 code 13 naming the field), not against
   * its schema as well, since the schema check costs about 13 microseconds of CPU a request, half
   * of all the gateway spends on a commit in record mode (docs/benchmarks.md); and how each one
   * ended is counted ({@code lvg_version_create_total}).
   */
  public boolean commitPath() {
    return this == CREATE_TABLE_VERSION;
  }

  /** The operation whose {@code operationId} is {@code id}, or null. */
  public static GatewayOperation byId(String id) {
    return BY_ID.get(id);
  }

  /** The operations the change feed carries, in the order of this catalogue. */
  public static List<GatewayOperation> inFeed() {
    return Arrays.stream(values()).filter(operation -> operation.eventType != null).toList();
  }
}
