package dev.lvg.feed;

import dev.lvg.http.ObjectId;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.operation.Right;
import dev.lvg.platform.Exported;
import dev.lvg.tenancy.Access;
import java.util.List;

/**
 * What a read of the change feed keeps: the operations and objects asked for (null: every one), of
 * those {@code readable} may read (null: every one, for a credential that reads the whole tenant).
 */
@Exported
public record FeedFilter(List<String> operations, List<String> objects, Access readable) {
  public static final FeedFilter ALL = new FeedFilter(null, null, null);

  public FeedFilter(List<String> operations, List<String> objects) {
    this(operations, objects, null);
  }

  /** This filter keeping only what {@code access} may read. */
  public FeedFilter readableBy(Access access) {
    return new FeedFilter(
        operations, objects, access == null || access.readFilter() == null ? null : access);
  }

  /**
   * The keys of the rows of the feed that may hold an event {@code access} may read: the namespaces
   * and tables granted, as {@code feed_keys} names what an event is or lies in.
   */
  static String[] readableKeys(Access access) {
    return access.grants().stream()
        .map(grant -> "in:" + ObjectId.display(grant.path()))
        .distinct()
        .toArray(String[]::new);
  }

  /**
   * Whether {@code access} may read an event of {@code operation} on {@code object} (its names): a
   * namespace's events with the right to read the namespace, every other event with the right to
   * read its table.
   */
  static boolean readable(Access access, String operation, List<String> object) {
    if (object.isEmpty()) {
      return false;
    }
    if (operation.equals(GatewayOperation.CREATE_NAMESPACE.id())
        || operation.equals(GatewayOperation.DROP_NAMESPACE.id())) {
      return access.mayOnNamespace(Right.READ, object);
    }
    return access.mayOnTable(
        Right.READ, object.subList(0, object.size() - 1), object.get(object.size() - 1));
  }
}
