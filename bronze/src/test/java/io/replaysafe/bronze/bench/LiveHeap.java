package io.replaysafe.bronze.bench;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The heap a measured run holds live, as opposed to its peak heap, which follows how much it
 * allocates and when the collector happens to run. Every reading is the heap in use right after a
 * full collection, so it counts only what is reachable:
 *
 * <ul>
 *   <li>before the run, after two full collections (the second collects what the first's reference
 *       processing and cleaners let go): everything the JVM already holds;
 *   <li>during the run, every {@code periodMs} a sampling thread forces a full collection and reads
 *       the heap: {@link Figures#live()} is the highest of these readings (and the closing one)
 *       above the reading before, the most the run was seen to hold at once;
 *   <li>after the run, after two full collections: {@link Figures#kept()}, what the run left behind
 *       above the reading before (caches, the session's state).
 * </ul>
 *
 * An earlier reading took the heap after whatever collections happened during the run, young ones
 * included: those leave the old generation's garbage counted, so it read what the collector had not
 * yet got to as held, and moved with the load and the collector's timing (66.5 MiB at 1,000 files
 * on a disturbed machine). The forced collections slow the run, so the benchmark times a run
 * without them and reads the heap of a second, identical run ({@link DiscoveryBenchmark}).
 */
final class LiveHeap {
  private final long before;
  private final AtomicLong highest = new AtomicLong();
  private final AtomicInteger samples = new AtomicInteger();
  private final Thread sampler;
  private volatile boolean running = true;

  /**
   * The histograms kept, in files, not strings: a histogram's text is over 1 MB, and held in the
   * heap it would be counted by the next histogram as the run's (measured: 2.5 MB of byte arrays in
   * an idle run that holds a few kilobytes).
   */
  private volatile java.nio.file.Path highestHistogram;

  private final java.nio.file.Path beforeHistogram;
  private final long beforeObjects;
  private final AtomicLong highestObjects = new AtomicLong(-1);

  /**
   * With {@code -Dreplaysafe.bench.histograms=DIR}, each sample is a class histogram of the live
   * objects (the JVM's GC.class_histogram, itself a full collection), and the one of the highest
   * sample is kept ({@link #histogram()}): what a run holds at its most.
   */
  private static final boolean HISTOGRAMS =
      System.getProperty("replaysafe.bench.histograms") != null;

  /**
   * @param live the highest heap in use after a full collection during the run, bytes above the
   *     reading before
   * @param kept the heap in use after the closing full collections, above the reading before
   * @param samples the full collections read during the run, the closing one included
   * @param before the heap in use after the full collections before the run: what the JVM held
   *     already (the session, earlier runs' caches), the base {@code live} and {@code kept} are
   *     taken from; {@code before + live} is the JVM's whole live heap at the run's highest reading
   * @param objects with histograms, the most bytes of live objects a histogram counted during the
   *     run above the histogram before it, else -1. A histogram counts at a safepoint, while the
   *     heap's use read after {@code System.gc()} also counts what the run's threads allocated
   *     between the collection's end and the reading, which grows with their allocation rate
   *     (measured: 27.8 MiB read that way where the histograms counted 8.8 MiB of objects)
   */
  record Figures(long live, long kept, int samples, long before, long objects) {
    /** The JVM's whole live heap at the run's highest reading. */
    long held() {
      return before + live;
    }
  }

  /**
   * With {@code -Dreplaysafe.bench.heapDumps=DIR} (and histograms), a heap dump of the live objects
   * at the sample with the most of them, as {@code DIR/<name>.hprof}: what holds them.
   */
  private final java.nio.file.Path heapDump;

  private LiveHeap(long periodMs, String name) {
    String dumps = System.getProperty("replaysafe.bench.heapDumps");
    this.heapDump =
        dumps == null || !HISTOGRAMS ? null : java.nio.file.Path.of(dumps, name + ".hprof");
    this.before = heapUsedAfterFullCollections(2);
    // Taken after the reading it describes: the histogram is itself a full collection.
    String before = HISTOGRAMS ? classHistogram() : null;
    this.beforeObjects = before == null ? -1 : totalBytes(before);
    this.beforeHistogram = before == null ? null : kept(before);
    this.sampler =
        new Thread(
            () -> {
              while (running) {
                try {
                  Thread.sleep(periodMs);
                } catch (InterruptedException e) {
                  return;
                }
                if (running) {
                  String histogram = HISTOGRAMS ? classHistogram() : null;
                  long used = heapUsedAfterFullCollections(1);
                  // A histogram whose own full collection the JVM skipped ("GC locker is held",
                  // while a task is in native code) counts garbage too: more than the heap then
                  // holds. Such a reading is dropped (measured: 47.3 MiB against 9.6).
                  long objects = histogram == null ? -1 : totalBytes(histogram);
                  if (objects >= 0 && objects <= used) {
                    if (objects > highestObjects.get() && heapDump != null) {
                      dumpHeap(heapDump);
                    }
                    highestObjects.accumulateAndGet(objects, Math::max);
                  }
                  if (used > highest.get()) {
                    highest.set(used);
                    highestHistogram = histogram == null ? null : kept(histogram);
                  }
                  samples.incrementAndGet();
                }
              }
            },
            "bench-live-heap");
    sampler.setDaemon(true);
    sampler.start();
  }

  /**
   * Collects fully twice, then samples the live heap every {@code periodMs} until {@link #stop};
   * {@code name} names the run's heap dump, when asked for.
   */
  static LiveHeap sampling(long periodMs, String name) {
    return new LiveHeap(periodMs, name);
  }

  /** A dump of the live objects to {@code file}, replacing an earlier one. */
  private static void dumpHeap(java.nio.file.Path file) {
    try {
      java.nio.file.Files.deleteIfExists(file);
      ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
          .dumpHeap(file.toString(), true);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Stops sampling, collects fully twice more and returns the run's figures. */
  Figures stop() throws InterruptedException {
    running = false;
    sampler.interrupt();
    sampler.join();
    long after = heapUsedAfterFullCollections(2);
    long live = Math.max(highest.get(), after);
    // The closing reading counts as a sample for the objects too, as it does for the heap: a run
    // shorter than the sampling period (an idle run over 1,000 files, 0.05 s) is still compared.
    if (HISTOGRAMS) {
      long closing = totalBytes(classHistogram());
      if (closing <= heapUsedAfterFullCollections(0)) {
        highestObjects.accumulateAndGet(closing, Math::max);
      }
    }
    long objects =
        beforeObjects < 0 || highestObjects.get() < 0
            ? -1
            : Math.max(0, highestObjects.get() - beforeObjects);
    return new Figures(
        Math.max(0, live - before),
        Math.max(0, after - before),
        samples.get() + 1,
        before,
        objects);
  }

  /** The class histogram of the highest sample, when histograms were asked for; else null. */
  String histogram() {
    return read(highestHistogram);
  }

  /**
   * The class histogram before the run, when histograms were asked for; else null. Set against
   * {@link #histogram()}, it shows what the run held at its most, not what the JVM held already.
   */
  String beforeHistogram() {
    return read(beforeHistogram);
  }

  /** A histogram's text, written to a temporary file that is deleted when the JVM exits. */
  private static java.nio.file.Path kept(String histogram) {
    try {
      java.nio.file.Path file = java.nio.file.Files.createTempFile("live-heap", ".histo");
      file.toFile().deleteOnExit();
      java.nio.file.Files.writeString(file, histogram);
      return file;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String read(java.nio.file.Path file) {
    try {
      return file == null ? null : java.nio.file.Files.readString(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The bytes of the histogram's closing "Total" line. */
  private static long totalBytes(String histogram) {
    String[] lines = histogram.strip().split("\n");
    String[] total = lines[lines.length - 1].trim().split("\\s+");
    if (!total[0].equals("Total")) {
      throw new IllegalStateException("A class histogram without its Total line: " + total[0]);
    }
    return Long.parseLong(total[2]);
  }

  private static String classHistogram() {
    try {
      return (String)
          ManagementFactory.getPlatformMBeanServer()
              .invoke(
                  new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"),
                  "gcClassHistogram",
                  new Object[] {new String[0]},
                  new String[] {String[].class.getName()});
    } catch (javax.management.JMException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long heapUsedAfterFullCollections(int times) {
    for (int i = 0; i < times; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
