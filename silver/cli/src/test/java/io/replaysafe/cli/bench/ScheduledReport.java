package io.replaysafe.cli.bench;

import io.replaysafe.cli.bench.Measurement.Case;
import io.replaysafe.cli.bench.Measurement.Side;
import io.replaysafe.cli.bench.Measurement.Storage;
import java.io.PrintStream;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * What the benchmark prints: a line per run as it ends, then per storage and case the medians of
 * each side and their ratios, then one line per target of issue 28 ending in MET or NOT MET.
 */
final class ScheduledReport {
  static final double LOCAL_TEN_WALL_SECONDS = 20;
  static final double LOCAL_TEN_WALL_RATIO = 0.35;
  static final long S3_TEN_REQUESTS = 250;
  static final double S3_TEN_REQUEST_RATIO = 0.65;
  static final long S3_NOTHING_REQUESTS = 60;
  static final double S3_TEN_WALL_RATIO = 0.5;
  static final double THOUSAND_WALL_RATIO = 1.0;

  private final PrintStream out;

  ScheduledReport(PrintStream out) {
    this.out = out;
  }

  void runHeader(Storage storage) {
    out.printf(
        Locale.ROOT,
        "%n%-12s %-5s %-11s %5s %7s %7s %7s %8s %8s %11s%s%n",
        "side",
        "store",
        "case",
        "round",
        "wall s",
        "cpu s",
        "rss MiB",
        "bronze s",
        "silver s",
        "load start-end",
        storage == Storage.S3A ? "  S3 requests: LIST GET HEAD PUT POST DELETE = total" : "");
  }

  void run(Measurement m) {
    out.printf(
        Locale.ROOT,
        "%-12s %-5s %-11s %5s %7.2f %7.2f %7.0f %8.2f %8.2f   %5.2f-%5.2f%s%n",
        m.side().label,
        m.storage().label,
        m.runCase().label,
        m.runCase() == Case.PREPARE ? "-" : Integer.toString(m.round()),
        m.cost().wallSeconds(),
        m.cost().cpuSeconds(),
        m.cost().peakRssMiB(),
        m.bronzeSeconds(),
        m.silverSeconds(),
        m.loadAtStart(),
        m.loadAtEnd(),
        m.storage() == Storage.S3A ? "  " + requests(m) : "");
    out.flush();
  }

  /**
   * Where the first round's S3 requests went, per case and side: the areas with the most requests
   * first. Requests hardly vary between rounds, so one round shows them.
   */
  void areas(List<Measurement> all) {
    List<Measurement> firstRound =
        all.stream().filter(m -> m.storage() == Storage.S3A && m.round() == 1).toList();
    if (firstRound.isEmpty()) {
      return;
    }
    out.printf(
        Locale.ROOT,
        "%nS3 requests by path, round 1 (bucket:directory under the side's root): LIST GET HEAD"
            + " PUT POST DELETE = total%n");
    for (Case c : Case.TIMED) {
      for (Side side : Side.values()) {
        firstRound.stream()
            .filter(m -> m.runCase() == c && m.side() == side)
            .forEach(
                m -> {
                  out.printf(
                      Locale.ROOT, "%s, %s: %d requests%n", c.label, side.label, m.totalRequests());
                  m.requestAreas().entrySet().stream()
                      .sorted(
                          Comparator.comparingLong(
                                  (Map.Entry<String, Map<String, Long>> e) -> total(e.getValue()))
                              .reversed())
                      .forEach(
                          e ->
                              out.printf(
                                  Locale.ROOT, "  %-40s %s%n", e.getKey(), requests(e.getValue())));
                });
      }
    }
  }

  /** Medians per storage and case, and the ratios replaysafe / hand-written. */
  void medians(List<Measurement> all, List<Storage> storages) {
    out.printf(
        Locale.ROOT,
        "%n%-7s %-12s %-26s %7s %7s %7s %8s%n",
        "medians",
        "case",
        "side",
        "wall s",
        "cpu s",
        "rss MiB",
        "requests");
    for (Storage storage : storages) {
      for (Case c : Case.TIMED) {
        if (!ran(all, storage, c)) {
          continue; // --no-thousand
        }
        Medians rs = medians(all, Side.REPLAYSAFE, storage, c);
        Medians hw = medians(all, Side.HAND_WRITTEN, storage, c);
        String where = storage.label;
        for (Side side : Side.values()) {
          Medians m = side == Side.REPLAYSAFE ? rs : hw;
          out.printf(
              Locale.ROOT,
              "%-7s %-12s %-26s %7.2f %7.2f %7.0f %8s%n",
              where,
              side == Side.REPLAYSAFE ? c.label : "",
              side.label,
              m.wall,
              m.cpu,
              m.rssMiB,
              storage == Storage.S3A ? String.format(Locale.ROOT, "%.0f", m.requests) : "-");
          where = "";
        }
        out.printf(
            Locale.ROOT,
            "%-7s %-12s %-26s %7.2f %7.2f %7.2f %8s%n",
            "",
            "",
            "replaysafe / hand-written",
            rs.wall / hw.wall,
            rs.cpu / hw.cpu,
            rs.rssMiB / hw.rssMiB,
            storage == Storage.S3A
                ? String.format(Locale.ROOT, "%.2f", rs.requests / hw.requests)
                : "-");
      }
    }
  }

  /** One line per target; {@code latencyMillis} is what every S3 request was delayed by. */
  void targets(List<Measurement> all, List<Storage> storages, long latencyMillis) {
    out.println();
    if (storages.contains(Storage.LOCAL)) {
      Medians rs = medians(all, Side.REPLAYSAFE, Storage.LOCAL, Case.TEN);
      Medians hw = medians(all, Side.HAND_WRITTEN, Storage.LOCAL, Case.TEN);
      double ratio = rs.wall / hw.wall;
      target(
          String.format(
              Locale.ROOT,
              "local disk, 10 new events: replaysafe %.1f s wall (target <= %.0f s), %.2fx the"
                  + " hand-written job's %.1f s (target <= %.2fx)",
              rs.wall,
              LOCAL_TEN_WALL_SECONDS,
              ratio,
              hw.wall,
              LOCAL_TEN_WALL_RATIO),
          rs.wall <= LOCAL_TEN_WALL_SECONDS && ratio <= LOCAL_TEN_WALL_RATIO);
    }
    if (storages.contains(Storage.S3A)) {
      Medians rs = medians(all, Side.REPLAYSAFE, Storage.S3A, Case.TEN);
      Medians hw = medians(all, Side.HAND_WRITTEN, Storage.S3A, Case.TEN);
      double ratio = rs.requests / hw.requests;
      target(
          String.format(
              Locale.ROOT,
              "s3a, 10 new events: replaysafe %.0f S3 requests (target <= %d), %.2fx the"
                  + " hand-written job's %.0f (target <= %.2fx)",
              rs.requests,
              S3_TEN_REQUESTS,
              ratio,
              hw.requests,
              S3_TEN_REQUEST_RATIO),
          rs.requests <= S3_TEN_REQUESTS && ratio <= S3_TEN_REQUEST_RATIO);
      Medians idle = medians(all, Side.REPLAYSAFE, Storage.S3A, Case.NOTHING);
      target(
          String.format(
              Locale.ROOT,
              "s3a, nothing new: replaysafe %.0f S3 requests (target <= %d)",
              idle.requests,
              S3_NOTHING_REQUESTS),
          idle.requests <= S3_NOTHING_REQUESTS);
      double wallRatio = rs.wall / hw.wall;
      target(
          String.format(
              Locale.ROOT,
              "s3a with %d ms per request, 10 new events: replaysafe %.1f s wall, %.2fx the"
                  + " hand-written job's %.1f s (target <= %.2fx%s)",
              latencyMillis,
              rs.wall,
              wallRatio,
              hw.wall,
              S3_TEN_WALL_RATIO,
              latencyMillis == 20 ? "" : ", defined at 20 ms"),
          wallRatio <= S3_TEN_WALL_RATIO);
    }
    for (Storage storage : storages) {
      if (!ran(all, storage, Case.THOUSAND)) {
        out.println(
            "target "
                + (storage == Storage.LOCAL ? "local disk" : "s3a")
                + ", 1,000 new events: not run (--no-thousand)");
        continue;
      }
      Medians rs = medians(all, Side.REPLAYSAFE, storage, Case.THOUSAND);
      Medians hw = medians(all, Side.HAND_WRITTEN, storage, Case.THOUSAND);
      double ratio = rs.wall / hw.wall;
      target(
          String.format(
              Locale.ROOT,
              "%s, 1,000 new events: replaysafe %.1f s wall, %.2fx the hand-written job's %.1f s"
                  + " (target <= %.2fx)",
              storage == Storage.LOCAL ? "local disk" : "s3a",
              rs.wall,
              ratio,
              hw.wall,
              THOUSAND_WALL_RATIO),
          ratio <= THOUSAND_WALL_RATIO);
    }
  }

  private void target(String what, boolean met) {
    out.println("target " + what + ": " + (met ? "MET" : "NOT MET"));
  }

  private static String requests(Measurement m) {
    return requests(m.requests());
  }

  private static String requests(Map<String, Long> byKind) {
    StringBuilder line = new StringBuilder();
    for (String kind : Measurement.REQUEST_KINDS) {
      line.append(String.format(Locale.ROOT, "%4d ", byKind.getOrDefault(kind, 0L)));
    }
    return line.append(String.format(Locale.ROOT, "= %4d", total(byKind))).toString();
  }

  private static long total(Map<String, Long> byKind) {
    return byKind.values().stream().mapToLong(Long::longValue).sum();
  }

  private record Medians(double wall, double cpu, double rssMiB, double requests) {}

  /** Whether both sides ran {@code c} on {@code storage} ({@code --no-thousand} skips a case). */
  private static boolean ran(List<Measurement> all, Storage storage, Case c) {
    return all.stream()
            .filter(m -> m.storage() == storage && m.runCase() == c)
            .map(Measurement::side)
            .distinct()
            .count()
        == Side.values().length;
  }

  private static Medians medians(List<Measurement> all, Side side, Storage storage, Case c) {
    List<Measurement> runs =
        all.stream()
            .filter(m -> m.side() == side && m.storage() == storage && m.runCase() == c)
            .toList();
    return new Medians(
        median(runs, m -> m.cost().wallSeconds()),
        median(runs, m -> m.cost().cpuSeconds()),
        median(runs, m -> m.cost().peakRssMiB()),
        median(runs, m -> m.totalRequests()));
  }

  static double median(List<Measurement> runs, ToDoubleFunction<Measurement> figure) {
    double[] sorted = runs.stream().mapToDouble(figure).sorted().toArray();
    if (sorted.length == 0) {
      throw new IllegalStateException("No run to take a median of");
    }
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }
}
