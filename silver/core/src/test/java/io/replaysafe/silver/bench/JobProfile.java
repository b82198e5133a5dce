package io.replaysafe.silver.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.StageInfo;
import org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveExecutionUpdate;
import org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd;
import org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart;

/**
 * {@code bench-silver --profile}: where a run's time goes, as the Spark jobs it ran (call site,
 * description, seconds). Time outside jobs (planning, Delta log reads on the driver, commits) is
 * the run's seconds minus the jobs' sum.
 */
final class JobProfile extends SparkListener {
  record Job(int id, long startMs, String site, String description, double seconds) {}

  private final Map<Integer, Job> running = new ConcurrentHashMap<>();
  private final List<Job> done = new ArrayList<>();

  /** One SQL execution: its description, the joins and exchanges of its (final) plan. */
  record Sql(long id, long startMs, String description, String plan, double seconds) {}

  private final Map<Long, Sql> sqlRunning = new ConcurrentHashMap<>();
  private final List<Sql> sqlDone = new ArrayList<>();

  @Override
  public void onOtherEvent(SparkListenerEvent event) {
    if (event instanceof SparkListenerSQLExecutionStart e) {
      sqlRunning.put(
          e.executionId(),
          new Sql(e.executionId(), e.time(), e.description(), e.physicalPlanDescription(), 0));
    } else if (event instanceof SparkListenerSQLAdaptiveExecutionUpdate e) {
      Sql q = sqlRunning.get(e.executionId());
      if (q != null) {
        sqlRunning.put(
            e.executionId(),
            new Sql(q.id(), q.startMs(), q.description(), e.physicalPlanDescription(), 0));
      }
    } else if (event instanceof SparkListenerSQLExecutionEnd e) {
      Sql q = sqlRunning.remove(e.executionId());
      if (q != null) {
        synchronized (sqlDone) {
          sqlDone.add(
              new Sql(
                  q.id(), q.startMs(), q.description(), q.plan(), (e.time() - q.startMs()) / 1e3));
        }
      }
    }
  }

  /** The plan's operators that matter for cost: joins, exchanges, scans (counted). */
  static String shape(String plan) {
    if (plan == null) {
      return "";
    }
    String head =
        plan.contains("== Physical Plan ==")
            ? plan.substring(plan.indexOf("== Physical Plan =="))
            : plan;
    int end = head.indexOf("\n\n(");
    if (end > 0) {
      head = head.substring(0, end);
    }
    Map<String, Integer> ops = new LinkedHashMap<>();
    for (String op :
        List.of(
            "BroadcastHashJoin",
            "SortMergeJoin",
            "ShuffledHashJoin",
            "BroadcastNestedLoopJoin",
            "Exchange hashpartitioning",
            "Exchange SinglePartition",
            "BroadcastExchange",
            "Scan parquet",
            "InMemoryTableScan",
            "Window",
            "Sort [")) {
      int count = 0;
      for (int i = head.indexOf(op); i >= 0; i = head.indexOf(op, i + 1)) {
        count++;
      }
      if (count > 0) {
        ops.put(op.replace(" [", ""), count);
      }
    }
    return ops.toString();
  }

  @Override
  public void onJobStart(SparkListenerJobStart start) {
    String site = "?";
    int maxStage = -1;
    for (StageInfo s : scala.jdk.javaapi.CollectionConverters.asJava(start.stageInfos())) {
      if (s.stageId() > maxStage) {
        maxStage = s.stageId();
        site = s.name();
      }
    }
    String description =
        start.properties() == null ? null : start.properties().getProperty("spark.job.description");
    String callSite =
        start.properties() == null ? null : start.properties().getProperty("callSite.long");
    if (callSite != null) {
      for (String frame : callSite.split("\n")) {
        if (frame.contains("io.replaysafe.") && !frame.contains(".bench.")) {
          site = frame.trim().replaceFirst("^.*io\\.replaysafe\\.", "") + " / " + site;
          break;
        }
      }
    }
    running.put(
        start.jobId(),
        new Job(start.jobId(), start.time(), site, description == null ? "" : description, 0));
  }

  @Override
  public void onJobEnd(SparkListenerJobEnd end) {
    Job j = running.remove(end.jobId());
    if (j != null) {
      synchronized (done) {
        done.add(
            new Job(
                j.id(), j.startMs(), j.site(), j.description(), (end.time() - j.startMs()) / 1e3));
      }
    }
  }

  void reset() {
    synchronized (done) {
      done.clear();
    }
    synchronized (sqlDone) {
      sqlDone.clear();
    }
  }

  /** SQL executions since the last reset taking at least {@code minSeconds}, in start order. */
  String sqlReport(double minSeconds) {
    List<Sql> list;
    synchronized (sqlDone) {
      list = new ArrayList<>(sqlDone);
    }
    list.sort((a, b) -> Long.compare(a.startMs(), b.startMs()));
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT, "  SQL executions (%d), those >= %.1f s:%n", list.size(), minSeconds));
    for (Sql q : list) {
      if (q.seconds() < minSeconds) {
        continue;
      }
      String d = q.description() == null ? "" : q.description().replace('\n', ' ');
      if (d.length() > 70) {
        d = d.substring(0, 70);
      }
      sb.append(
          String.format(Locale.ROOT, "  %7.2f s  %-70s %s%n", q.seconds(), d, shape(q.plan())));
    }
    return sb.toString();
  }

  /** The jobs since the last reset, grouped by call site in order of first appearance. */
  String report(String title, double totalSeconds) {
    List<Job> jobs;
    synchronized (done) {
      jobs = new ArrayList<>(done);
    }
    jobs.sort((a, b) -> Long.compare(a.startMs(), b.startMs()));
    Map<String, double[]> bySite = new LinkedHashMap<>();
    double sum = 0;
    for (Job j : jobs) {
      String desc = j.description().replace('\n', ' ');
      if (desc.length() > 60) {
        desc = desc.substring(0, 60);
      }
      double[] agg = bySite.computeIfAbsent(j.site() + " | " + desc, k -> new double[2]);
      agg[0]++;
      agg[1] += j.seconds();
      sum += j.seconds();
    }
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "profile of %s: %d Spark job(s), %.2f s in jobs, %.2f s outside jobs%n",
                title,
                jobs.size(),
                sum,
                totalSeconds - sum));
    if (System.getenv("BENCH_JOBS") != null && !jobs.isEmpty()) {
      long t0 = jobs.get(0).startMs();
      for (Job j : jobs) {
        sb.append(
            String.format(
                Locale.ROOT,
                "    +%6.2f %6.2f s  %s | %s%n",
                (j.startMs() - t0) / 1e3,
                j.seconds(),
                j.site(),
                j.description().replace('\n', ' ')));
      }
    }
    bySite.forEach(
        (site, agg) ->
            sb.append(
                String.format(
                    Locale.ROOT, "  %7.2f s %3d job(s)  %s%n", agg[1], (int) agg[0], site)));
    return sb.toString();
  }
}
