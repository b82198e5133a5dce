package io.replaysafe.silver.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.metrics.source.CodegenMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.catalyst.expressions.codegen.CodeGenerator;

/**
 * The load-independent side of a measurement: how many Spark jobs a run started (all, and those
 * inside silver's micro-batches, recognised by the job group {@code SilverJob} sets), the peak heap
 * and the machine's load average, which says how much other processes inflated the wall clock.
 */
final class RunMeter extends SparkListener {
  static final String SILVER_BATCH_GROUP = "replaysafe-silver-";

  private final AtomicInteger jobs = new AtomicInteger();
  private final AtomicInteger batchJobs = new AtomicInteger();
  private long compilesAtReset;
  private long compileNanosAtReset;

  @Override
  public void onJobStart(SparkListenerJobStart start) {
    jobs.incrementAndGet();
    String group =
        start.properties() == null ? null : start.properties().getProperty("spark.jobGroup.id");
    if (group != null && group.startsWith(SILVER_BATCH_GROUP)) {
      batchJobs.incrementAndGet();
    }
  }

  /** Starts a measurement: job counters and every heap pool's peak reset. */
  void reset() {
    jobs.set(0);
    batchJobs.set(0);
    compilesAtReset = compilesSoFar();
    compileNanosAtReset = CodeGenerator.compileTime();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  int jobs() {
    return jobs.get();
  }

  int batchJobs() {
    return batchJobs.get();
  }

  /**
   * Classes Spark generated and compiled since {@link #reset()}: a query whose code is not in
   * Spark's compile cache (a new shape, or one evicted or compiled for another class loader) pays a
   * few milliseconds of driver or task time per class. Load-independent, as the job counts are.
   */
  long compiles() {
    return compilesSoFar() - compilesAtReset;
  }

  /** Seconds spent compiling those classes. */
  double compileSeconds() {
    return (CodeGenerator.compileTime() - compileNanosAtReset) / 1e9;
  }

  private static long compilesSoFar() {
    return CodegenMetrics.METRIC_COMPILATION_TIME().getCount();
  }

  /** Sum of the heap pools' peaks since {@link #reset()} (an upper bound of the peak heap). */
  static long peakHeapBytes() {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  /** The 1-minute load average, or -1 where /proc/loadavg does not exist. */
  static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (Exception e) {
      return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
  }
}
