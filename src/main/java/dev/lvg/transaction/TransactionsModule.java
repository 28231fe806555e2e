package dev.lvg.transaction;

import dev.lvg.auth.Routes;
import dev.lvg.platform.Feature;

/** {@code DescribeTransaction}: what a transaction id recorded. */
public final class TransactionsModule extends Feature {
  public TransactionsModule() {
    super("transactions");
  }

  @Override
  public void routes(Routes routes) {
    new TransactionRoutes(platform().pools().reads()).mount(routes);
  }
}
