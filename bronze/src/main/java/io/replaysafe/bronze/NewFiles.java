package io.replaysafe.bronze;

import java.util.List;

/**
 * Which of a discovery's candidates are new after a planned batch, in the order batches take them:
 * those no batch up to it holds ({@link FileState#notPlanned}), less those {@code maxFileAge} finds
 * too old, ordered by {@link BatchLimits#order}. Decided here only: the source asks before it plans
 * ({@link CheckedFileStreamSource}) and a run asks before it starts its query ({@link FirstLook}),
 * and a run that found nothing new must be right that the source would have found nothing either.
 */
final class NewFiles {
  private NewFiles() {}

  /**
   * @param lastPlanned the batch the next one follows; -1 before the first
   * @param state the file state's version the caller decided {@code lastPlanned} on
   */
  static List<FileState.Discovered> among(
      FileDiscovery discovery, long lastPlanned, FileState.Version state, BatchLimits limits) {
    // The candidates stream past a chunk at a time: only the new ones are kept, so a listing's
    // size does not decide the run's heap. They are ordered once all are known, as before.
    // A listing passes over the ranges it knows to be held (ListedRanges), and learns the rest.
    List<FileState.Discovered> fresh =
        state.notPlanned(
            each -> discovery.undecided(state, limits.byName(), each),
            lastPlanned,
            limits.byName());
    discovery.notHeld(fresh);
    if (limits.maxFileAgeMs() != null) {
      limits.dropTooOld(fresh, state.newestModification());
    }
    fresh.sort(limits.order());
    return fresh;
  }
}
