package dev.lvg.bench;

import dev.lvg.auth.ObjectAccess;
import dev.lvg.http.TableId;
import dev.lvg.operation.Right;
import dev.lvg.tenancy.Access;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What the check a scoped key's commit adds costs on its own, for {@code bench/grants.sh}: the
 * access of a key whose role holds {@code GRANTS} grants made as the script makes them (one of them
 * writing namespace {@code bench}), asked whether it may write tables of {@code bench}, as the
 * check in front of {@code version/create} asks (the path's id, already read for the operation,
 * made a table id, then the right looked up). Warms up, then times {@code ROUNDS} rounds of a
 * second; prints {@code LVG-ACCESS grants=... ns_per_check=<median round>}.
 *
 * <pre>AccessCost [grants] [rounds]</pre>
 */
public final class AccessCost {
  private AccessCost() {}

  public static void main(String[] args) {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
    List<Access.Grant> grants = new ArrayList<>();
    for (int i = 1; i < count; i++) {
      Right right = i % 3 == 0 ? Right.READ : Right.MANAGE;
      grants.add(
          i % 2 == 0
              ? new Access.Grant(right, List.of("team_" + i), false)
              : new Access.Grant(right, List.of("team_" + (i / 10), "table_" + i), true));
    }
    grants.add(new Access.Grant(Right.WRITE, List.of("bench"), false));
    Access access = Access.of(Set.of(), grants);
    List<List<String>> ids = new ArrayList<>();
    for (int t = 0; t < 1000; t++) {
      ids.add(List.of("bench", "r1scopedm" + t));
    }
    long sink = 0;
    for (int warm = 0; warm < 3; warm++) {
      sink += round(access, ids);
    }
    List<Double> nanos = new ArrayList<>();
    for (int r = 0; r < rounds; r++) {
      long start = System.nanoTime();
      long checks = round(access, ids);
      nanos.add((System.nanoTime() - start) / (double) checks);
      sink += checks;
    }
    nanos.sort(Double::compare);
    System.out.printf(
        "LVG-ACCESS grants=%d ns_per_check=%.0f (rounds %s; %d)%n",
        count, nanos.get(nanos.size() / 2), nanos, sink % 7);
  }

  /** Checks for about a second; the number of checks. */
  private static long round(Access access, List<List<String>> ids) {
    long until = System.nanoTime() + 1_000_000_000L;
    long checks = 0;
    while (System.nanoTime() < until) {
      for (List<String> id : ids) {
        ObjectAccess.check(access, Right.WRITE, TableId.of(id), false);
      }
      checks += ids.size();
    }
    return checks;
  }
}
