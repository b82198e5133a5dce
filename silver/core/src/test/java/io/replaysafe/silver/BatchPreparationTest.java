package io.replaysafe.silver;

import static io.replaysafe.silver.StepFixtures.ORDERS;
import static io.replaysafe.silver.StepFixtures.ORDERS_SCHEMA;
import static io.replaysafe.silver.StepFixtures.bronze;
import static io.replaysafe.silver.StepFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The steps before the target is read, each called on its own with exact rows out. */
class BatchPreparationTest extends SparkTestBase {
  @TempDir Path dir;

  SilverContract orders() {
    return TestContracts.contract(dir, ORDERS_SCHEMA, ORDERS);
  }

  @Test
  void identityNormalisesTheKeyOnceAndKeepsTheRawKeyAndPayloadForReports() throws Exception {
    SilverContract contract =
        TestContracts.contract(
            dir,
            "code STRING, v BIGINT, status STRING, op STRING",
            "keys: [code]\nkeyNormalization: upper_trim\nsequenceBy: [v]\n"
                + "applyAsDeletes: \"op = 'DELETE'\"\n");
    Dataset<Row> bronze =
        spark.createDataFrame(
            List.of(
                RowFactory.create(" a ", 2L, "Shipped", "UPSERT", null, null),
                RowFactory.create("B", 1L, null, "DELETE", null, null)),
            StructType.fromDDL(
                "code STRING, v BIGINT, status STRING, op STRING, _rescued_data STRING,"
                    + " _corrupt_record STRING"));

    Dataset<Row> identified = BatchPreparation.identity(bronze, contract);

    assertThat(
            rows(
                identified
                    .select(
                        "code",
                        SilverContract.RAW_KEY,
                        SilverContract.SEQ,
                        SilverContract.IS_DELETE,
                        BatchPreparation.KEY_DISPLAY,
                        BatchPreparation.SEQ_DISPLAY,
                        SilverContract.PAYLOAD_HASH,
                        SilverContract.RAW_PAYLOAD)
                    .orderBy("code")))
        .containsExactly(
            "A|{\"code\":\" a \"}|[2]|false|A|2|"
                + ConflictAndQuarantineTest.sha256("{\"status\":\"Shipped\",\"op\":\"UPSERT\"}")
                + "|{\"code\":\" a \",\"v\":2,\"status\":\"Shipped\",\"op\":\"UPSERT\","
                + "\"_rescued_data\":null,\"_corrupt_record\":null}",
            "B|{\"code\":\"B\"}|[1]|true|B|1|"
                + ConflictAndQuarantineTest.sha256("{\"status\":null,\"op\":\"DELETE\"}")
                + "|{\"code\":\"B\",\"v\":1,\"status\":null,\"op\":\"DELETE\","
                + "\"_rescued_data\":null,\"_corrupt_record\":null}");
  }

  @Test
  void collapseKeepsTheEarliestBronzeVersionThenFileOfEachExactRetry() {
    SilverContract contract = orders();
    Dataset<Row> prepared =
        BatchPreparation.identity(
            bronze(
                spark,
                row(1, 1, "A", "UPSERT", "f2", 5),
                row(1, 1, "A", "UPSERT", "f9", 3),
                row(1, 1, "A", "UPSERT", "f1", 3),
                row(1, 2, "A", "UPSERT", "f1", 7),
                row(2, 1, "A", "UPSERT", "f1", 1),
                row(2, 1, "B", "UPSERT", "f1", 1)),
            contract);

    Dataset<Row> collapsed = BatchPreparation.collapseRetries(prepared, contract);

    assertThat(
            rows(
                collapsed
                    .select("k", "v", "status", "source_file", "_commit_version")
                    .orderBy("k", "v", "status")))
        .containsExactly("1|1|A|f1|3", "1|2|A|f1|7", "2|1|A|f1|1", "2|1|B|f1|1");
  }

  @Test
  void aConflictInTheBatchIsAKeyAndSequenceWithMoreThanOnePayload() {
    SilverContract contract = orders();
    Dataset<Row> collapsed =
        BatchPreparation.collapseRetries(
            BatchPreparation.identity(
                bronze(
                    spark,
                    row(1, 1, "A", "UPSERT", "f", 1),
                    row(1, 1, "A", "UPSERT", "g", 1),
                    row(1, 2, "A", "UPSERT", "f", 1),
                    row(2, 1, "A", "UPSERT", "f", 1),
                    row(2, 1, "B", "UPSERT", "f", 1),
                    row(2, 1, "C", "UPSERT", "f", 1),
                    row(3, 4, null, "DELETE", "f", 1),
                    row(3, 4, null, "UPSERT", "f", 1)),
                contract),
            contract);

    assertThat(rows(BatchPreparation.conflictsInBatch(collapsed, contract).orderBy("k")))
        .containsExactly("2|[1]", "3|[4]");
  }

  @Test
  void theLatestVersionOfAKeyIsItsHighestSequenceComparedColumnByColumn() {
    SilverContract contract =
        TestContracts.contract(
            dir,
            "k BIGINT, epoch BIGINT, v BIGINT, status STRING",
            "keys: [k]\nsequenceBy: [epoch, v]\n");
    Dataset<Row> bronze =
        spark.createDataFrame(
            List.of(
                RowFactory.create(1L, 1L, 9L, "old epoch", null, null),
                RowFactory.create(1L, 2L, 0L, "new epoch", null, null),
                RowFactory.create(2L, 1L, 1L, "first", null, null),
                RowFactory.create(2L, 1L, 2L, "second", null, null)),
            StructType.fromDDL(
                "k BIGINT, epoch BIGINT, v BIGINT, status STRING, _rescued_data STRING,"
                    + " _corrupt_record STRING"));

    Dataset<Row> latest =
        BatchPreparation.latestPerKey(BatchPreparation.identity(bronze, contract), contract);

    assertThat(rows(latest.select("k", "status").orderBy("k")))
        .containsExactly("1|new epoch", "2|second");
  }
}
