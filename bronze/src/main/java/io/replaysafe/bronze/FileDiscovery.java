package io.replaysafe.bronze;

import java.util.List;
import java.util.function.Consumer;

/**
 * Where a bronze run finds the files that may be new: a listing of {@code source.path}, or the S3
 * event notifications of an SQS queue. The seam between discovering and reading: a discovery only
 * finds candidates; the {@link FileState} decides which are new, the source plans and reads them,
 * {@link BronzeAppend} writes them, and the file state records their fate.
 */
interface FileDiscovery extends AutoCloseable {
  /**
   * Candidate files, oldest first or in any order (the source orders them); may repeat files
   * already ingested or already returned, which the file state filters out.
   */
  List<FileState.Discovered> discover();

  /**
   * The candidates {@link #discover()} finds, handed to {@code each} one at a time as they are
   * found, without holding them: a listing's candidates grow with the prefix, and the file state
   * looks them up a chunk at a time ({@link FileState.Version#notPlanned(Consumer, long,
   * boolean)}). By default, {@link #discover()}'s list.
   */
  default void discoverEach(Consumer<FileState.Discovered> each) {
    discover().forEach(each);
  }

  /**
   * The candidates the file state must decide, handed to {@code each} as {@link #discoverEach}
   * hands them: by default all of them; a listing passes over the ranges of its listing it knows to
   * be held already ({@link ListedRanges}). The file state's answer goes to {@link #notHeld}.
   *
   * @param state the file state's version that decides them
   * @param byName whether files are known by name only ({@code fileNameOnly})
   */
  default void undecided(
      FileState.Version state, boolean byName, Consumer<FileState.Discovered> each) {
    discoverEach(each);
  }

  /**
   * Which of the candidates {@link #undecided} handed on no planned batch holds (before {@code
   * maxFileAge} drops any): every other one it handed on is held.
   */
  default void notHeld(List<FileState.Discovered> fresh) {}

  /** How a file this discovery found is recorded in the file state ({@code discovered_by}). */
  String kind(FileState.Discovered file);

  /**
   * Every batch up to the one the run committed last is durable: what the discovery holds for them
   * (notifications on the queue) may be let go. Called once the run's query stopped.
   */
  default void committed(long lastCommitted) {}

  /**
   * What the source made of the candidates: {@code plannedPaths} went into {@code batch} (empty
   * where it planned none), {@code pendingPaths} are new and wait for a later batch (the batch
   * limits). The candidates in neither were found planned already.
   */
  default void planned(long batch, List<String> plannedPaths, List<String> pendingPaths) {}

  /**
   * Every batch up to {@code batch} committed: what the discovery holds for the candidates planned
   * there, or found planned already, may be let go. A continuous query's source calls it each
   * trigger, before it discovers (Spark asks for the next batch once the last one committed), so a
   * run of days holds only what is in flight.
   */
  default void release(long batch) {}

  /** What the run counted (notifications ignored and why), for its summary; empty by default. */
  default DiscoveryCounts counts() {
    return DiscoveryCounts.NONE;
  }

  @Override
  default void close() {}
}
