package dev.sluice.proxy.forward;

import dev.sluice.net.ByteAccount;

/**
 * The bytes that first stages (a ClientHello being read, a PROXY protocol header, the TLS port's
 * first bytes) hold until their decision, charged to the listener's share of the proxy's {@link
 * InFlightBudget} like the copies pairs hold: legs then wait for room while first stages hold much
 * of it.
 */
public final class FirstStageHold implements ByteAccount {
  private final InFlightBudget.Share budget;

  public FirstStageHold(InFlightBudget.Share budget) {
    this.budget = budget;
  }

  @Override
  public void charge(long bytes) {
    budget.charge(bytes);
  }

  @Override
  public void release(long bytes) {
    budget.release(bytes);
  }
}
