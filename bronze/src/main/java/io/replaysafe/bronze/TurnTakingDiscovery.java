package io.replaysafe.bronze;

import io.replaysafe.common.spark.ContinuousTrigger;
import java.util.List;

/**
 * A continuous bronze run's discovery: each trigger of its query starts by discovering new files,
 * before it plans or writes anything, so that is where it waits while housekeeping holds the
 * batches ({@link ContinuousTrigger#awaitTurn}). The run keeps the discovery it wraps and closes
 * that one.
 */
final class TurnTakingDiscovery implements FileDiscovery {
  static final String LAYER = "bronze";

  private final FileDiscovery discovery;
  private final ContinuousTrigger trigger;

  TurnTakingDiscovery(FileDiscovery discovery, ContinuousTrigger trigger) {
    this.discovery = discovery;
    this.trigger = trigger;
  }

  @Override
  public List<FileState.Discovered> discover() {
    trigger.awaitTurn(LAYER);
    return discovery.discover();
  }

  @Override
  public void discoverEach(java.util.function.Consumer<FileState.Discovered> each) {
    trigger.awaitTurn(LAYER);
    discovery.discoverEach(each);
  }

  @Override
  public void undecided(
      FileState.Version state,
      boolean byName,
      java.util.function.Consumer<FileState.Discovered> each) {
    trigger.awaitTurn(LAYER);
    discovery.undecided(state, byName, each);
  }

  @Override
  public void notHeld(List<FileState.Discovered> fresh) {
    discovery.notHeld(fresh);
  }

  @Override
  public String kind(FileState.Discovered file) {
    return discovery.kind(file);
  }

  @Override
  public void committed(long lastCommitted) {
    discovery.committed(lastCommitted);
  }

  @Override
  public void planned(long batch, List<String> plannedPaths, List<String> pendingPaths) {
    discovery.planned(batch, plannedPaths, pendingPaths);
  }

  @Override
  public void release(long batch) {
    discovery.release(batch);
  }

  @Override
  public DiscoveryCounts counts() {
    return discovery.counts();
  }
}
