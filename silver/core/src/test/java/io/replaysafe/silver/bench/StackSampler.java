package io.replaysafe.silver.bench;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bench-silver --profile}: a poor man's profiler of a silver run's wall clock. Every 20 ms
 * it samples the driver thread doing the run's work (the main thread, or the stream execution
 * thread while the main thread waits for it) and charges the interval to the innermost replaysafe
 * line on its stack, so Spark jobs, Delta log work and planning are all attributed to the step of
 * the contract that caused them.
 */
final class StackSampler implements AutoCloseable {
  private static final long INTERVAL_MS = 20;
  private final Thread main;
  private final Thread sampler;
  private final Map<String, Long> nanos = new HashMap<>();
  private volatile boolean stop;
  private int samples;

  StackSampler() {
    this.main = Thread.currentThread();
    this.sampler = new Thread(this::loop, "bench-silver-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  private void loop() {
    long last = System.nanoTime();
    while (!stop) {
      try {
        Thread.sleep(INTERVAL_MS);
      } catch (InterruptedException e) {
        return;
      }
      String where = sample();
      long now = System.nanoTime();
      // A loaded machine wakes the sampler late: charge the real interval, not the nominal one.
      synchronized (nanos) {
        samples++;
        nanos.merge(where, now - last, Long::sum);
      }
      last = now;
    }
  }

  private String sample() {
    StackTraceElement[] stack = main.getStackTrace();
    if (waitsForStream(stack)) {
      for (var e : Thread.getAllStackTraces().entrySet()) {
        if (e.getKey().getName().startsWith("stream execution thread for replaysafe_silver")) {
          return attribute(e.getValue());
        }
      }
      return "(waiting for the stream)";
    }
    return attribute(stack);
  }

  private static boolean waitsForStream(StackTraceElement[] stack) {
    for (StackTraceElement f : stack) {
      if (f.getMethodName().equals("awaitTermination")) {
        return true;
      }
    }
    return false;
  }

  private static String attribute(StackTraceElement[] stack) {
    String inner = null;
    for (StackTraceElement f : stack) {
      String c = f.getClassName();
      if (inner == null && waitsForJob(f)) {
        inner = "Spark job";
      }
      if (inner == null && c.startsWith("org.apache.spark.sql.delta.")) {
        inner = "delta " + c.substring(c.lastIndexOf('.') + 1) + "." + f.getMethodName();
      }
      if (c.startsWith("io.replaysafe.") && !c.contains(".bench.")) {
        String line = f.getFileName() + ":" + f.getLineNumber() + " " + f.getMethodName();
        return line + "  <  " + (inner == null ? innermostSpark(stack) : inner);
      }
    }
    return stack.length == 0 ? "(idle)" : "(stream engine) " + innermostSpark(stack);
  }

  private static boolean waitsForJob(StackTraceElement f) {
    return f.getClassName().equals("org.apache.spark.scheduler.DAGScheduler")
        && f.getMethodName().equals("runJob");
  }

  private static String innermostSpark(StackTraceElement[] stack) {
    for (StackTraceElement f : stack) {
      String c = f.getClassName();
      if (c.startsWith("org.apache.spark.")) {
        return c.substring(c.lastIndexOf('.') + 1) + "." + f.getMethodName();
      }
    }
    return stack.length == 0 ? "?" : stack[0].getClassName() + "." + stack[0].getMethodName();
  }

  @Override
  public void close() {
    stop = true;
    sampler.interrupt();
    try {
      sampler.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  String report(String title) {
    List<Map.Entry<String, Long>> rows;
    synchronized (nanos) {
      rows =
          nanos.entrySet().stream()
              .sorted(Map.Entry.comparingByValue((a, b) -> Long.compare(b, a)))
              .toList();
    }
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "sampled wall clock of %s (%d samples, every %d ms or later), by innermost"
                    + " replaysafe line:%n",
                title,
                samples,
                INTERVAL_MS));
    for (var r : rows) {
      if (r.getValue() < 100_000_000L) {
        continue;
      }
      sb.append(String.format(Locale.ROOT, "  %7.2f s  %s%n", r.getValue() / 1e9, r.getKey()));
    }
    // The same samples by replaysafe line alone: what each step of the contract costs in all.
    Map<String, Long> byLine = new HashMap<>();
    rows.forEach(r -> byLine.merge(r.getKey().split("  <  ")[0], r.getValue(), Long::sum));
    sb.append("  by replaysafe line alone:\n");
    byLine.entrySet().stream()
        .sorted(Map.Entry.comparingByValue((a, b) -> Long.compare(b, a)))
        .filter(r -> r.getValue() >= 50_000_000L)
        .forEach(
            r ->
                sb.append(
                    String.format(Locale.ROOT, "  %7.2f s  %s%n", r.getValue() / 1e9, r.getKey())));
    return sb.toString();
  }
}
