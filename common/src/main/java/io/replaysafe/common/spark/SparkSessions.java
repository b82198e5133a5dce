package io.replaysafe.common.spark;

import io.replaysafe.common.config.StorageConfig;
import io.replaysafe.common.lease.FencedCheckpointFileManager;
import io.replaysafe.common.lease.FencedLogStore;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

/**
 * The one place a SparkSession is configured. On a cluster (Databricks, EMR, Kubernetes,
 * spark-submit) the deployment owns the session: an existing one is reused as it is, and a new one
 * is built on the configured master with only Delta added. Only when no master is configured at all
 * is a {@code local[2]} session sized for a laptop created.
 */
public final class SparkSessions {
  public static final String LOCAL_MASTER_DEFAULT = "local[2]";

  /**
   * JIT options of a child JVM that runs a short Spark job on small data (the rehearsal's jobs, the
   * tests' children and executors): the quick JIT alone starts and finishes sooner. With it alone
   * the JVM reserves only 48 MB for compiled code, which Spark's generated classes can fill (a
   * dozen commands in one JVM did, CI 2026-12-01); once it is full, Java 17 can fail to link a
   * method handle, and Spark's task deserialisation fails with it. 240 MB is the tiered default:
   * address space, used only as code is compiled.
   */
  public static final List<String> SHORT_JOB_JIT =
      List.of("-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m");

  static final String DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension";
  static final String DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog";
  static final String CREDENTIALS_PROVIDER = "fs.s3a.aws.credentials.provider";

  /** Where the session comes from. */
  enum Origin {
    /** A session already runs in this JVM (a Databricks driver, a notebook, a test): reuse it. */
    EXISTING,
    /**
     * A master is configured: spark-submit always sets {@code spark.master} as a system property
     * before it calls the main class; a Databricks driver says so in its environment.
     */
    CLUSTER,
    /** Nothing configured: the local launcher. */
    LOCAL
  }

  /** Spark's setting for the checkpoint file manager; replaysafe's is fenced by the lease. */
  public static final String CHECKPOINT_FILE_MANAGER =
      "spark.sql.streaming.checkpointFileManagerClass";

  private SparkSessions() {}

  /** Returns the active session, or builds one as {@link Origin} decides. */
  public static SparkSession getOrCreate(String appName) {
    Optional<SparkSession> existing = existingSession();
    Origin origin = origin(existing.isPresent(), new SparkConf(), System.getenv());
    SparkSession spark =
        switch (origin) {
          case EXISTING -> existing.get();
          case CLUSTER -> {
            SparkSession.Builder builder = SparkSession.builder().appName(appName);
            SparkConf deployed = new SparkConf();
            deltaSettings(deployed).forEach(builder::config);
            fencedLogStores(deployed).forEach(builder::config);
            yield builder.getOrCreate();
          }
          case LOCAL -> {
            driverPagesOfOneMebibyte();
            SparkSession.Builder builder = localBuilder(appName);
            fencedLogStores(new SparkConf()).forEach(builder::config);
            yield builder.getOrCreate();
          }
        };
    // Runtime settings the jobs rely on wherever they run: one time zone for every timestamp
    // they write, and every micro-batch's progress kept so run summaries can add them all up.
    spark.conf().set("spark.sql.session.timeZone", "UTC");
    spark.conf().set("spark.sql.streaming.numRecentProgressUpdates", "100000");
    if (spark.conf().getOption(CHECKPOINT_FILE_MANAGER).isEmpty()) {
      spark.conf().set(CHECKPOINT_FILE_MANAGER, FencedCheckpointFileManager.class.getName());
    }
    io.replaysafe.common.CrashPoints.install(spark);
    String logLevel = System.getProperty("replaysafe.sparkLogLevel");
    if (logLevel != null || origin == Origin.LOCAL) {
      // On a cluster the deployment's logging configuration stands unless asked otherwise.
      spark.sparkContext().setLogLevel(logLevel == null ? "WARN" : logLevel);
    }
    return spark;
  }

  static Origin origin(boolean sessionExists, SparkConf conf, Map<String, String> env) {
    if (sessionExists) {
      return Origin.EXISTING;
    }
    if (conf.contains("spark.master") || env.containsKey("DATABRICKS_RUNTIME_VERSION")) {
      return Origin.CLUSTER;
    }
    return Origin.LOCAL;
  }

  private static Optional<SparkSession> existingSession() {
    scala.Option<SparkSession> active = SparkSession.getActiveSession();
    if (active.isDefined()) {
      return Optional.of(active.get());
    }
    scala.Option<SparkSession> shared = SparkSession.getDefaultSession();
    return shared.isDefined() ? Optional.of(shared.get()) : Optional.empty();
  }

  /**
   * What a session the deployment configures needs for Delta: its extension added to any others
   * configured, and the Delta catalog unless another catalog was chosen on purpose.
   */
  static Map<String, String> deltaSettings(SparkConf conf) {
    Map<String, String> settings = new LinkedHashMap<>();
    String extensions = conf.get("spark.sql.extensions", "").trim();
    boolean hasDelta =
        Arrays.stream(extensions.split(",")).map(String::trim).anyMatch(DELTA_EXTENSION::equals);
    if (!hasDelta) {
      settings.put(
          "spark.sql.extensions",
          extensions.isEmpty() ? DELTA_EXTENSION : extensions + "," + DELTA_EXTENSION);
    }
    if (!conf.contains("spark.sql.catalog.spark_catalog")) {
      settings.put("spark.sql.catalog.spark_catalog", DELTA_CATALOG);
    }
    return settings;
  }

  /**
   * Delta's log store for local and S3 tables with the writer's lease in front of every commit
   * ({@link FencedLogStore}), for each scheme whose log store the deployment did not choose (a
   * deployment with {@code S3DynamoDBLogStore} keeps it, and its commits are fenced only by the
   * checks replaysafe makes itself). A session that exists already (a Databricks cluster's) keeps
   * its own: these are read when the session starts.
   */
  static Map<String, String> fencedLogStores(SparkConf conf) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String scheme : new java.util.TreeSet<>(FencedLogStore.SCHEMES)) {
      String key = "spark.delta.logStore." + scheme + ".impl";
      if (!conf.contains(key) && !conf.contains("spark.delta.logStore.class")) {
        settings.put(key, FencedLogStore.class.getName());
      }
    }
    return settings;
  }

  /**
   * What keeps a long-lived local driver's heap from growing with its batches ({@code run
   * --continuous}: two streaming queries, about 40 SQL executions and 30 jobs per silver batch).
   * Measured with {@code scripts/bench-freshness} and class histograms of its driver (2026-12-04):
   *
   * <ul>
   *   <li>Tungsten's page size. Unset, Spark derives it from the heap: with {@code -Xmx4g} and two
   *       cores every on-heap page is a 64 MB {@code long[]}, and each broadcast hash join (silver
   *       broadcasts a batch's keys several times per batch) builds its relation in at least one
   *       page, even for ten rows. The driver's block store keeps every broadcast until Spark's
   *       context cleaner sees its handle collected, so between two old-generation collections dead
   *       64 MB relations pile up: 270 MB of {@code long[]} in one histogram after 3 minutes, the
   *       heap after a full GC and the RSS jumping by multiples of 64 MB. 1 MB is Spark's own floor
   *       for small heaps; a larger row still gets a page of its own size.
   *   <li>The status store. Spark records every job, stage, task and SQL execution (with its plan
   *       text and graph) in an in-memory store whether or not the UI is enabled (the SQL listener
   *       is registered by the shared state unconditionally), keeping 1,000 jobs, stages and SQL
   *       executions and 100,000 tasks per stage by default: about 40 MB of plan descriptions and
   *       graphs once a continuous run reaches 1,000 executions (25 silver batches), which nothing
   *       here reads, the UI being off. These keep the last few, enough to look at a batch.
   * </ul>
   *
   * <p>A cluster's session is the deployment's: these apply to the local launcher only.
   */
  static final Map<String, String> BOUNDED_DRIVER_MEMORY =
      Map.of(
          "spark.buffer.pageSize", "1m", // also a system property: driverPagesOfOneMebibyte
          "spark.ui.retainedJobs", "50",
          "spark.ui.retainedStages", "50",
          "spark.ui.retainedTasks", "1000",
          "spark.sql.ui.retainedExecutions", "20",
          "spark.ui.retainedDeadExecutors", "10");

  static final String PAGE_SIZE = "spark.buffer.pageSize";

  /**
   * The page size for what the driver builds outside any task, as a system property: a broadcast
   * hash join's relation is built on the driver with a memory manager of its own made from {@code
   * new SparkConf()}, which reads system properties only, not the session's settings, and sizes its
   * pages for the whole heap (64 MB with {@code -Xmx4g}). Measured after the session setting alone:
   * six such relations of a continuous run, 64 MB each, in the driver's block store at once (a heap
   * dump at 13 minutes). A value the JVM was started with stays.
   */
  static void driverPagesOfOneMebibyte() {
    if (System.getProperty(PAGE_SIZE) == null) {
      System.setProperty(PAGE_SIZE, BOUNDED_DRIVER_MEMORY.get(PAGE_SIZE));
    }
  }

  private static SparkSession.Builder localBuilder(String appName) {
    SparkSession.Builder builder = SparkSession.builder();
    BOUNDED_DRIVER_MEMORY.forEach(builder::config);
    return builder
        .appName(appName)
        .master(LOCAL_MASTER_DEFAULT)
        .config("spark.sql.extensions", DELTA_EXTENSION)
        .config("spark.sql.catalog.spark_catalog", DELTA_CATALOG)
        .config("spark.ui.enabled", "false")
        // Spark compiles each query's generated code once per JVM, keyed by the code and by the
        // class loader running it. Its cache keeps 100 classes by default, fewer than one silver
        // batch generates (about 140), and artifact isolation gives every streaming query's
        // session a class loader of its own on the executors: a JVM that runs several jobs
        // (bench-silver, the tests, a run of bronze then silver) compiled about 130 classes again
        // in every silver run. With these two, 2 (bench-silver at 1M rows, 2026-12-01). The
        // local launcher adds no jars or classes to a session, which isolation exists for.
        .config("spark.sql.codegen.cache.maxEntries", "1000")
        .config("spark.sql.artifact.isolation.enabled", "false")
        .config(
            "spark.sql.shuffle.partitions", System.getProperty("replaysafe.shufflePartitions", "2"))
        // Delta rebuilds table state with 50 tasks by default: far too many on two cores.
        .config("spark.databricks.delta.snapshotPartitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config(
            "spark.sql.warehouse.dir",
            System.getProperty("java.io.tmpdir") + "/replaysafe-warehouse");
  }

  /**
   * Points S3A at the pipeline's endpoint. Credentials are not set here: S3A uses the AWS SDK's
   * default provider chain (environment, system properties, profile, web identity, instance role)
   * unless the deployment chose its own providers.
   */
  public static void applyStorage(SparkSession spark, Optional<StorageConfig> storage) {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    if (!spark.conf().contains("spark.hadoop." + CREDENTIALS_PROVIDER)
        && !deploymentChoseCredentials(conf, System.getenv())) {
      conf.set(
          CREDENTIALS_PROVIDER,
          "software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider");
    }
    boundS3aWaits(conf);
    skipCreateProbes(conf);
    storage.ifPresent(
        s -> {
          if (s.endpoint() != null) {
            String previous = conf.get("fs.s3a.endpoint");
            if (previous != null && !previous.equals(s.endpoint())) {
              // Hadoop caches one S3A client per bucket, built with the endpoint of its time: a
              // new endpoint in the same JVM (a second embedded demo, a rehearsal) needs new ones.
              closeCachedFileSystems();
            }
            conf.set("fs.s3a.endpoint", s.endpoint());
          }
          conf.set("fs.s3a.endpoint.region", s.region());
          conf.setBoolean("fs.s3a.path.style.access", s.pathStyleAccess());
          conf.setBoolean("fs.s3a.connection.ssl.enabled", !s.sslDisabled());
          // A fresh bucket probe and change detection add round trips emulators do not need.
          conf.setInt("fs.s3a.bucket.probe", 0);
        });
  }

  /**
   * S3A waits that replaysafe bounds unless the deployment set them: Hadoop's defaults let one read
   * wait 200 s for a silent socket and multiply the SDK's retries by S3A's own, so a hung endpoint
   * stalls a run for many minutes per request. With these, a dead endpoint fails a request in about
   * a minute and a run fails with exit code 4 (retryable); {@code --timeout} bounds the run.
   */
  static final Map<String, String> S3A_BOUNDS =
      Map.of(
          "fs.s3a.connection.establish.timeout", "15s",
          "fs.s3a.connection.timeout", "60s",
          "fs.s3a.connection.request.timeout", "120s",
          "fs.s3a.attempts.maximum", "3",
          "fs.s3a.retry.limit", "5");

  static void boundS3aWaits(Configuration conf) {
    S3A_BOUNDS.forEach(
        (key, value) -> {
          if (!chosenByDeployment(conf, key)) {
            conf.set(key, value, "replaysafe");
          }
        });
  }

  /**
   * S3A's create() option that skips its probes before a write, unless the deployment set it: a
   * HEAD (is there a file by that name?) and a LIST (a directory?) before every file Spark and
   * Delta write, two requests each (measured: 14 of a scheduled run's 334 with 10 new events).
   * Neither probe was atomic with the PUT, and nothing replaysafe runs relies on them: data files
   * and deletion vectors have unique names, Delta's commits go through {@code FencedLogStore} and
   * the checkpoint's files through {@code FencedCheckpointFileManager}, which each ask for the file
   * themselves (one HEAD) where it must not exist, and the pipeline's lease keeps other writers
   * out.
   */
  static final String CREATE_PERFORMANCE = io.replaysafe.common.io.DirectPut.CREATE_PERFORMANCE;

  static void skipCreateProbes(Configuration conf) {
    if (!chosenByDeployment(conf, CREATE_PERFORMANCE)) {
      conf.set(CREATE_PERFORMANCE, "true", "replaysafe");
    }
  }

  private static boolean chosenByDeployment(Configuration conf, String key) {
    if (conf.get(key) == null) {
      return false;
    }
    String[] sources = conf.getPropertySources(key);
    return sources != null
        && !Arrays.stream(sources)
            .allMatch(source -> source.equals("core-default.xml") || source.equals("replaysafe"));
  }

  /**
   * True on Databricks, whose S3 access (instance profiles, Unity Catalog) is the platform's, and
   * when the S3A credential providers come from anywhere but Hadoop's own defaults
   * (core-default.xml lists providers without profiles or system properties): a core-site.xml, a
   * {@code spark.hadoop.} setting, a platform such as EMR that wires its own. Those are kept.
   */
  static boolean deploymentChoseCredentials(Configuration conf, Map<String, String> env) {
    if (env.containsKey("DATABRICKS_RUNTIME_VERSION")) {
      return true;
    }
    if (conf.get(CREDENTIALS_PROVIDER) == null) {
      return false;
    }
    String[] sources = conf.getPropertySources(CREDENTIALS_PROVIDER);
    return sources != null
        && !Arrays.stream(sources).allMatch(source -> source.equals("core-default.xml"));
  }

  private static void closeCachedFileSystems() {
    try {
      org.apache.hadoop.fs.FileSystem.closeAll();
    } catch (java.io.IOException e) {
      throw new io.replaysafe.common.ReplaysafeException(
          "Cannot close cached Hadoop file systems before switching S3 endpoints: "
              + e.getMessage(),
          e);
    }
  }
}
