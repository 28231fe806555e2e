package dev.lvg.tenancy;

import dev.lvg.operation.Right;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a principal may do where in its tenant: the rights it holds on the whole tenant and its
 * grants below it, each a right on a namespace's subtree (the namespace and everything beneath it)
 * or on one table. The right on an object is the highest of those that cover it. A namespace is
 * also <em>seen</em> (listed, described, its existence answered) when something granted lies
 * beneath it, so a principal can walk down to what it was granted.
 *
 * <p>Grants are held in a tree of names, so what a request may do costs one step per name of its
 * object however many grants the principal holds.
 */
public final class Access {
  /** No right anywhere. */
  public static final Access NONE = new Access(Set.of(), List.of());

  /**
   * One grant: {@code right} on the table {@code path} names (its namespace's names, then its own)
   * when {@code table}, else on the subtree of the namespace {@code path} names (no names: the
   * whole tenant).
   */
  public record Grant(Right right, List<String> path, boolean table) {
    public Grant {
      path = List.copyOf(path);
      if (right == Right.ADMIN) {
        throw new IllegalArgumentException("admin is not granted inside a tenant");
      }
      if (table && path.isEmpty()) {
        throw new IllegalArgumentException("a table grant names a table");
      }
    }
  }

  private final Set<Right> tenantRights;
  private final List<Grant> grants;
  private final Node root = new Node();
  private final Filter readFilter;

  private Access(Set<Right> tenantRights, List<Grant> grants) {
    this.tenantRights = tenantRights.isEmpty() ? Set.of() : Set.copyOf(tenantRights);
    this.grants = List.copyOf(grants);
    for (Grant grant : this.grants) {
      Node node = root;
      int namespaceNames = grant.table() ? grant.path().size() - 1 : grant.path().size();
      for (String name : grant.path().subList(0, namespaceNames)) {
        node = node.children.computeIfAbsent(name, unused -> new Node());
      }
      if (grant.table()) {
        node.tables.merge(grant.path().get(namespaceNames), grant.right(), Access::higher);
      } else {
        node.subtree = higher(node.subtree, grant.right());
      }
    }
    this.readFilter = filterOf();
  }

  /**
   * The access of a credential with {@code scopes} on the whole tenant (as API keys and tokens
   * carry them: {@code write} there has always included creating and dropping, so it stands for
   * {@link Right#MANAGE}) and {@code grants} below it.
   */
  public static Access of(Set<Right> scopes, List<Grant> grants) {
    Set<Right> rights = EnumSet.noneOf(Right.class);
    for (Right scope : scopes) {
      rights.add(scope);
      if (scope == Right.WRITE) {
        rights.add(Right.MANAGE);
      }
      if (scope != Right.ADMIN) {
        rights.add(Right.READ);
      }
    }
    return scopes.isEmpty() && grants.isEmpty() ? NONE : new Access(rights, grants);
  }

  /** The rights on the whole tenant that a key's scopes name (read, write); others are ignored. */
  public static Set<Right> scopes(String[] labels) {
    Set<Right> rights = EnumSet.noneOf(Right.class);
    for (String label : labels) {
      Right right = Right.of(label);
      if (right == Right.READ || right == Right.WRITE) {
        rights.add(right);
      }
    }
    return rights;
  }

  /** Whether it holds {@code right} on the whole tenant (or, for admin, at all). */
  public boolean onTenant(Right right) {
    return tenantRights.contains(right);
  }

  /** Whether it holds {@code right} anywhere in the tenant: on the tenant, or by a grant. */
  public boolean mayAnywhere(Right right) {
    return onTenant(right) || grants.stream().anyMatch(grant -> grant.right().includes(right));
  }

  /** The rights it holds on the whole tenant. */
  public Set<Right> tenantRights() {
    return tenantRights;
  }

  /** Its grants below the tenant, as given. */
  public List<Grant> grants() {
    return grants;
  }

  /** The highest right it holds on the namespace {@code names} name, or null for none. */
  public Right onNamespace(List<String> names) {
    Right right = tenantLevel();
    Node node = root;
    right = higher(right, node.subtree);
    for (String name : names) {
      node = node.children.get(name);
      if (node == null) {
        return right;
      }
      right = higher(right, node.subtree);
    }
    return right;
  }

  /** The highest right it holds on the table {@code name} in namespace {@code namespace}. */
  public Right onTable(List<String> namespace, String name) {
    Right right = higher(tenantLevel(), root.subtree);
    Node node = root;
    for (String part : namespace) {
      node = node.children.get(part);
      if (node == null) {
        return right;
      }
      right = higher(right, node.subtree);
    }
    return higher(right, node.tables.get(name));
  }

  /**
   * Whether the namespace {@code names} name is seen: some right on it, or something granted
   * beneath it.
   */
  public boolean sees(List<String> names) {
    if (onNamespace(names) != null) {
      return true;
    }
    if (grants.isEmpty()) {
      return false;
    }
    Node node = root;
    for (String name : names) {
      node = node.children.get(name);
      if (node == null) {
        return false;
      }
    }
    return true;
  }

  /** Whether it may do what {@code right} allows on the namespace {@code names} name. */
  public boolean mayOnNamespace(Right right, List<String> names) {
    Right held = onNamespace(names);
    return held != null && held.includes(right);
  }

  /** Whether it may do what {@code right} allows on the table {@code name} in {@code namespace}. */
  public boolean mayOnTable(Right right, List<String> namespace, String name) {
    Right held = onTable(namespace, name);
    return held != null && held.includes(right);
  }

  /**
   * What a query needs to keep only what it may read: the namespaces whose subtrees it reads and
   * the tables it reads one by one, each as {@link #key} writes it; and the namespaces it sees for
   * holding a grant beneath them (every namespace of a granted object's path). Null when it reads
   * the whole tenant (by its scopes or a grant on it), so a query needs no filter at all.
   */
  public Filter readFilter() {
    return readFilter;
  }

  /** {@link #readFilter}, made once with the tree: every list and feed read asks for it. */
  private Filter filterOf() {
    if (onTenant(Right.READ) || root.subtree != null) {
      return null;
    }
    List<String> subtrees = new ArrayList<>();
    List<String> tables = new ArrayList<>();
    List<String> holders = new ArrayList<>();
    for (Grant grant : grants) {
      if (grant.table()) {
        tables.add(key(grant.path()));
        holders.add(key(grant.path().subList(0, grant.path().size() - 1)));
      } else {
        subtrees.add(key(grant.path()));
        holders.add(key(grant.path()));
      }
    }
    return new Filter(
        subtrees.toArray(String[]::new),
        tables.toArray(String[]::new),
        holders.stream().distinct().toArray(String[]::new));
  }

  /** What {@link #readFilter} gives a query: three {@code text[]} parameters. */
  public record Filter(String[] subtrees, String[] tables, String[] holders) {}

  /**
   * The names of a path joined for a comparison by prefix: each name followed by the unit separator
   * (U+001F, a control character no name may hold), so {@code a} is a prefix of {@code a␟b␟} and
   * not of {@code ab␟}. In SQL: {@code array_to_string(path, chr(31)) || chr(31)}, or {@code ''}
   * for no names.
   */
  public static String key(List<String> names) {
    StringBuilder key = new StringBuilder();
    for (String name : names) {
      key.append(name).append('\u001f');
    }
    return key.toString();
  }

  /** Equal when both hold the same rights on the tenant and the same grants, in the same order. */
  @Override
  public boolean equals(Object other) {
    return other instanceof Access access
        && tenantRights.equals(access.tenantRights)
        && grants.equals(access.grants);
  }

  @Override
  public int hashCode() {
    return 31 * tenantRights.hashCode() + grants.hashCode();
  }

  private Right tenantLevel() {
    if (tenantRights.contains(Right.MANAGE)) {
      return Right.MANAGE;
    }
    if (tenantRights.contains(Right.WRITE)) {
      return Right.WRITE;
    }
    return tenantRights.contains(Right.READ) ? Right.READ : null;
  }

  private static Right higher(Right a, Right b) {
    if (a == null) {
      return b;
    }
    return b == null || a.ordinal() >= b.ordinal() ? a : b;
  }

  /** A namespace in the tree: the right granted on its subtree, on its tables, its children. */
  private static final class Node {
    private Right subtree;
    private final Map<String, Right> tables = new HashMap<>(2);
    private final Map<String, Node> children = new HashMap<>(2);
  }
}
