package io.replaysafe.bronze;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.DeltaOperations;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.delta.VersionChecksum;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.actions.FileAction;
import org.apache.spark.sql.delta.actions.SetTransaction;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import org.apache.spark.sql.execution.streaming.runtime.StreamExecution;
import org.apache.spark.sql.streaming.OutputMode;
import org.apache.spark.sql.types.DataType$;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Appends each micro-batch of bronze's query to the bronze table, once: in one Delta commit whose
 * {@code SetTransaction} names the query and the batch, as Delta's streaming sink writes it (same
 * application id, same {@code STREAMING UPDATE} operation). A batch run again after a crash between
 * the table's commit and the checkpoint's finds itself committed and writes nothing.
 *
 * <p>Why not Delta's sink: to know the query's last committed batch it asks the table's snapshot
 * for its transactions, and Delta 4.4 answers that by replaying the whole table state, every data
 * file in the checkpoint and the log since, in three Spark jobs, in every batch, and keeps that
 * state cached. A year of bronze holds tens of thousands of files, so every run, and every batch of
 * a continuous run, paid for all of bronze's history (measured with {@code
 * scripts/bench-discovery}: 3,000 bronze files rebuilt and held for a batch of one new file). The
 * checksum Delta writes beside every commit already holds the table's transactions, kept
 * incrementally; this reads them there, and asks Delta's own way only where the checksum has none
 * (an older writer, more than 100 application ids, a retention set on transactions).
 *
 * <p>A batch whose columns are not the table's, each with its type, is written by Delta's batch
 * writer with the same application id and batch ({@code txnAppId}, {@code txnVersion}): Delta then
 * decides, as its sink would, whether the difference may be written or is refused.
 */
final class BronzeAppend implements VoidFunction2<Dataset<Row>, Long> {
  private static final Logger LOG = LoggerFactory.getLogger(BronzeAppend.class);
  private static final long serialVersionUID = 1L;

  private final String table;

  BronzeAppend(String table) {
    this.table = table;
  }

  @Override
  public void call(Dataset<Row> batch, Long batchId) {
    SparkSession spark = batch.sparkSession();
    String queryId = spark.sparkContext().getLocalProperty(StreamExecution.QUERY_ID_KEY());
    if (queryId == null) {
      throw new IllegalStateException("bronze's append runs inside its streaming query only");
    }
    OptimisticTransaction txn = DeltaLog.forTable(spark, table).startTransaction();
    if (!writableAsIs(batch.schema(), txn.metadata().schema())) {
      LOG.info(
          "Batch {} of bronze's query: columns differ from the table {}; written by Delta's writer",
          batchId,
          table);
      batch
          .write()
          .format("delta")
          .mode("append")
          .option("txnAppId", queryId)
          .option("txnVersion", batchId)
          .save(table);
      return;
    }
    long committed = lastCommittedBatch(txn, queryId);
    if (committed >= batchId) {
      LOG.info(
          "Batch {} of bronze's query is in {} already (to batch {})", batchId, table, committed);
      return;
    }
    List<FileAction> files = CollectionConverters.asJava(txn.writeFiles(batch));
    // The commit's operation metrics, as Delta's sink reports them beside those of the write.
    SQLMetric added = SQLMetrics.createMetric(spark.sparkContext(), "number of files added");
    SQLMetric removed = SQLMetrics.createMetric(spark.sparkContext(), "number of files removed");
    added.set(files.size());
    removed.set(0);
    txn.registerSQLMetrics(
        spark,
        scala.collection.immutable.Map.from(
            CollectionConverters.asScala(
                Map.of("numAddedFiles", added, "numRemovedFiles", removed))));
    List<Action> actions = new ArrayList<>();
    actions.add(new SetTransaction(queryId, batchId, Option.apply(System.currentTimeMillis())));
    actions.addAll(files);
    txn.commit(
        CollectionConverters.asScala(actions).toSeq(),
        new DeltaOperations.StreamingUpdate(OutputMode.Append(), queryId, batchId, Option.empty()));
  }

  /**
   * The query's last batch in the table at the transaction's snapshot, -1 for none, read from the
   * snapshot's checksum where it holds the table's transactions, else from the table's state.
   * Either way the transaction records that it read the query's entry, so a concurrent commit of
   * the same query fails this one, as with Delta's own read.
   */
  static long lastCommittedBatch(OptimisticTransaction txn, String queryId) {
    OptionalLong known = fromChecksum(txn.snapshot(), queryId);
    if (known.isEmpty()) {
      return txn.txnVersion(queryId);
    }
    txn.readTxn().$plus$eq(queryId);
    return known.getAsLong();
  }

  /** The query's last batch as the snapshot's checksum records it; empty where it records none. */
  static OptionalLong fromChecksum(Snapshot snapshot, String queryId) {
    Option<VersionChecksum> checksum = snapshot.checksumOpt();
    if (checksum.isEmpty() || checksum.get().setTransactions().isEmpty()) {
      return OptionalLong.empty();
    }
    for (SetTransaction t : CollectionConverters.asJava(checksum.get().setTransactions().get())) {
      if (t.appId().equals(queryId)) {
        return OptionalLong.of(t.version());
      }
    }
    return OptionalLong.of(-1);
  }

  /**
   * Whether every column of the batch is a column of the table by the same name, of the same type,
   * nullable where the batch's is: what Delta's sink would write without changing or casting
   * anything. The table may have more columns (a promoted rescued field, written by a newer run).
   */
  static boolean writableAsIs(StructType batch, StructType table) {
    for (StructField column : batch.fields()) {
      Option<Object> index = table.getFieldIndex(column.name());
      if (index.isEmpty()) {
        return false;
      }
      StructField target = table.fields()[(Integer) index.get()];
      if (!DataType$.MODULE$.equalsIgnoreCompatibleNullability(column.dataType(), target.dataType())
          || (column.nullable() && !target.nullable())) {
        return false;
      }
    }
    return true;
  }
}
