package dev.lvg.tenancy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lvg.auth.ObjectAccess;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.NamespaceId;
import dev.lvg.http.TableId;
import dev.lvg.operation.Right;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

/**
 * Rights below the tenant against a model written here: a right on an object is the highest of the
 * grants whose namespace the object lies in (or whose table it is), found by looking at every
 * grant; a namespace is seen when something granted lies beneath it. Names come from a small
 * alphabet, so random trees and grants overlap often.
 */
class AccessTest {
  private static final List<Right> LEVELS = List.of(Right.READ, Right.WRITE, Right.MANAGE);

  /** A random object: a namespace, or a table when {@code table}. */
  record Target(List<String> path, boolean table) {}

  @Property(tries = 3000)
  void everyAnswerAgreesWithTheModel(
      @ForAll("scopes") Set<Right> scopes,
      @ForAll("grants") List<Access.Grant> grants,
      @ForAll("targets") Target target,
      @ForAll("levels") Right right,
      @ForAll boolean creates) {
    Access access = Access.of(scopes, grants);
    if (target.table()) {
      List<String> namespace = target.path().subList(0, target.path().size() - 1);
      String name = target.path().get(target.path().size() - 1);
      assertThat(access.onTable(namespace, name)).isEqualTo(level(scopes, grants, target));
      TableId table = new NamespaceId(namespace).table(name);
      assertThat(refusal(() -> ObjectAccess.check(access, right, table, creates)))
          .isEqualTo(modelRefusal(scopes, grants, target, right, creates));
    } else {
      assertThat(access.onNamespace(target.path())).isEqualTo(level(scopes, grants, target));
      assertThat(access.sees(target.path())).isEqualTo(sees(scopes, grants, target.path()));
      NamespaceId namespace = new NamespaceId(target.path());
      assertThat(refusal(() -> ObjectAccess.check(access, right, namespace, creates)))
          .isEqualTo(modelRefusal(scopes, grants, target, right, creates));
    }
  }

  /** What the list statements keep, evaluated here as PostgreSQL evaluates them. */
  @Property(tries = 3000)
  void theListFiltersKeepExactlyWhatMayBeSeen(
      @ForAll("scopes") Set<Right> scopes,
      @ForAll("grants") List<Access.Grant> grants,
      @ForAll("targets") Target target) {
    Access.Filter filter = Access.of(scopes, grants).readFilter();
    boolean kept;
    if (target.table()) {
      List<String> namespace = target.path().subList(0, target.path().size() - 1);
      kept =
          filter == null
              || anyPrefixOf(Access.key(namespace), filter.subtrees())
              || List.of(filter.tables()).contains(Access.key(target.path()));
      assertThat(kept).isEqualTo(level(scopes, grants, target) != null);
    } else if (!target.path().isEmpty()) {
      String key = Access.key(target.path());
      kept =
          filter == null
              || anyPrefixOf(key, filter.subtrees())
              || List.of(filter.holders()).stream().anyMatch(holder -> holder.startsWith(key));
      assertThat(kept).isEqualTo(sees(scopes, grants, target.path()));
    }
  }

  @Test
  void twoTeamsInOneTenantSeeOnlyTheirOwn() {
    Access teamA =
        Access.of(
            Set.of(),
            List.of(
                new Access.Grant(Right.MANAGE, List.of("team_a"), false),
                new Access.Grant(Right.READ, List.of("shared", "prices"), true)));
    assertThat(teamA.mayOnTable(Right.MANAGE, List.of("team_a", "raw"), "events")).isTrue();
    assertThat(teamA.mayOnTable(Right.READ, List.of("shared"), "prices")).isTrue();
    assertThat(teamA.mayOnTable(Right.WRITE, List.of("shared"), "prices")).isFalse();
    assertThat(teamA.mayOnTable(Right.READ, List.of("shared"), "salaries")).isFalse();
    assertThat(teamA.sees(List.of("shared"))).isTrue();
    assertThat(teamA.sees(List.of("team_b"))).isFalse();
    assertThatThrownBy(
            () ->
                ObjectAccess.check(
                    teamA, Right.READ, new NamespaceId(List.of("team_b")).table("t"), false))
        .isInstanceOfSatisfying(
            ApiException.class,
            refused -> assertThat(refused.errorCode()).isEqualTo(ErrorCode.NAMESPACE_NOT_FOUND));
    assertThatThrownBy(
            () ->
                ObjectAccess.check(
                    teamA, Right.WRITE, new NamespaceId(List.of("shared")).table("prices"), false))
        .isInstanceOfSatisfying(
            ApiException.class,
            refused -> assertThat(refused.errorCode()).isEqualTo(ErrorCode.PERMISSION_DENIED));
  }

  @Test
  void aTenantWideWriteScopeManagesAndReadsAsKeysAlwaysDid() {
    Access writer = Access.of(Set.of(Right.WRITE), List.of());
    assertThat(writer.onTenant(Right.MANAGE)).isTrue();
    assertThat(writer.onTenant(Right.READ)).isTrue();
    assertThat(writer.readFilter()).isNull();
    assertThat(Access.of(Set.of(Right.ADMIN), List.of()).onTenant(Right.READ)).isFalse();
  }

  // The model.

  private static Right level(Set<Right> scopes, List<Access.Grant> grants, Target target) {
    Right best =
        scopes.contains(Right.WRITE)
            ? Right.MANAGE
            : scopes.contains(Right.READ) ? Right.READ : null;
    List<String> namespace =
        target.table() ? target.path().subList(0, target.path().size() - 1) : target.path();
    for (Access.Grant grant : grants) {
      boolean covers =
          grant.table()
              ? target.table() && grant.path().equals(target.path())
              : startsWith(namespace, grant.path());
      if (covers && (best == null || grant.right().ordinal() > best.ordinal())) {
        best = grant.right();
      }
    }
    return best;
  }

  private static boolean sees(Set<Right> scopes, List<Access.Grant> grants, List<String> names) {
    if (level(scopes, grants, new Target(names, false)) != null) {
      return true;
    }
    for (Access.Grant grant : grants) {
      List<String> holder =
          grant.table() ? grant.path().subList(0, grant.path().size() - 1) : grant.path();
      if (startsWith(holder, names)) {
        return true;
      }
    }
    return false;
  }

  private static ErrorCode modelRefusal(
      Set<Right> scopes, List<Access.Grant> grants, Target target, Right right, boolean creates) {
    boolean nothing = grants.isEmpty() && scopes.isEmpty();
    if (target.table()) {
      Right held = level(scopes, grants, target);
      if (held != null && held.ordinal() >= right.ordinal()) {
        return null;
      }
      if (nothing) {
        return ErrorCode.PERMISSION_DENIED;
      }
      List<String> namespace = target.path().subList(0, target.path().size() - 1);
      if (!sees(scopes, grants, namespace)) {
        return ErrorCode.NAMESPACE_NOT_FOUND;
      }
      return !creates && held == null ? ErrorCode.TABLE_NOT_FOUND : ErrorCode.PERMISSION_DENIED;
    }
    Right held = level(scopes, grants, target);
    boolean may =
        right == Right.READ
            ? sees(scopes, grants, target.path())
            : held != null && held.ordinal() >= right.ordinal();
    if (may) {
      return null;
    }
    if (nothing) {
      return ErrorCode.PERMISSION_DENIED;
    }
    List<String> first =
        creates && !target.path().isEmpty()
            ? target.path().subList(0, target.path().size() - 1)
            : target.path();
    return sees(scopes, grants, first)
        ? ErrorCode.PERMISSION_DENIED
        : ErrorCode.NAMESPACE_NOT_FOUND;
  }

  private static boolean startsWith(List<String> path, List<String> prefix) {
    return path.size() >= prefix.size() && path.subList(0, prefix.size()).equals(prefix);
  }

  private static boolean anyPrefixOf(String key, String[] prefixes) {
    for (String prefix : prefixes) {
      if (key.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  private static ErrorCode refusal(Runnable check) {
    try {
      check.run();
      return null;
    } catch (ApiException refused) {
      return refused.errorCode();
    }
  }

  // Generators.

  @Provide
  Arbitrary<Set<Right>> scopes() {
    return Arbitraries.frequencyOf(
        Tuple.of(8, Arbitraries.just(Set.<Right>of())),
        Tuple.of(1, Arbitraries.just(Set.of(Right.READ))),
        Tuple.of(1, Arbitraries.just((Set<Right>) EnumSet.of(Right.READ, Right.WRITE))));
  }

  @Provide
  Arbitrary<Right> levels() {
    return Arbitraries.of(LEVELS);
  }

  private static Arbitrary<List<String>> paths(int min, int max) {
    return Arbitraries.of("a", "b", "c").list().ofMinSize(min).ofMaxSize(max);
  }

  @Provide
  Arbitrary<List<Access.Grant>> grants() {
    Arbitrary<Access.Grant> grant =
        Combinators.combine(Arbitraries.of(LEVELS), paths(0, 3), Arbitraries.of(true, false))
            .as((right, path, table) -> new Access.Grant(right, path, table && !path.isEmpty()));
    return grant.list().ofMaxSize(6).map(ArrayList::new);
  }

  @Provide
  Arbitrary<Target> targets() {
    return Combinators.combine(paths(0, 4), Arbitraries.of(true, false))
        .as((path, table) -> new Target(path, table && !path.isEmpty()));
  }
}
