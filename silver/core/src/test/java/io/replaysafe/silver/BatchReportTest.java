package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.io.Json;
import java.sql.Timestamp;
import java.util.List;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/** A batch's evidence and everything derived from it: JSON, summary line, run-log row. */
class BatchReportTest {
  static final Timestamp STARTED = Timestamp.valueOf("2026-01-02 03:04:05");

  static BatchReport report() {
    return new BatchReport(
        "run-1",
        7,
        BatchStatus.APPLIED,
        3L,
        null,
        10,
        1,
        2,
        5,
        0,
        1,
        1,
        1,
        3,
        1,
        1,
        2,
        1.23456,
        List.of(
            Note.ofAction(MergeAction.RETRY, "101", "2", null), Note.invalid("f1.json", "no key")),
        "v3",
        STARTED,
        null,
        0);
  }

  @Test
  void jsonKeepsTheFieldsAndTheirOrder() {
    assertThat(Json.compact(report()))
        .isEqualTo(
            "{\"runId\":\"run-1\",\"batchId\":7,\"status\":\"APPLIED\",\"bronzeVersionMin\":3,"
                + "\"bronzeVersionMax\":null,\"inputRows\":10,\"invalid\":1,\"exactRetries\":2,"
                + "\"distinctKeys\":5,\"conflictsInBatch\":0,\"conflictsWithTarget\":1,"
                + "\"olderIgnored\":1,\"supersededInBatch\":1,\"inserted\":3,\"updated\":1,"
                + "\"deleted\":1,\"quarantined\":2,\"seconds\":1.235,\"notes\":[\"key 101 sequence"
                + " 2: exact retry of the stored version, no change\",\"invalid row in f1.json (no"
                + " key): quarantined\"]}");
  }

  @Test
  void summaryLine() {
    assertThat(report().summary())
        .isEqualTo(
            "batch 7: 10 row(s) in, 1 invalid, 2 exact retries collapsed, 5 key(s), conflicts 0 in"
                + " batch / 1 with target, 1 older version(s) ignored, 1 superseded in batch;"
                + " inserted 3, updated 1, deleted 1, quarantined 2; 1.2 s");
  }

  @Test
  void runLogRowFollowsTheSchema() {
    assertThat(BatchReport.RUN_LOG_SCHEMA.fieldNames())
        .containsExactly(
            "run_id",
            "batch_id",
            "status",
            "rule_version",
            "started_at",
            "seconds",
            "bronze_version_min",
            "bronze_version_max",
            "input_rows",
            "invalid",
            "exact_retries",
            "distinct_keys",
            "conflicts_in_batch",
            "conflicts_with_target",
            "older_ignored",
            "superseded_in_batch",
            "inserted",
            "updated",
            "deleted",
            "quarantined",
            "message");
    Row row = report().runLogRow();
    assertThat(row.size()).isEqualTo(BatchReport.RUN_LOG_SCHEMA.size());
    assertThat(row.get(0)).isEqualTo("run-1");
    assertThat(row.get(2)).isEqualTo("APPLIED");
    assertThat(row.get(3)).isEqualTo("v3");
    assertThat(row.get(4)).isEqualTo(STARTED);
    assertThat(row.get(5)).isEqualTo(1.23456);
    assertThat(row.isNullAt(7)).isTrue();
    assertThat(row.get(19)).isEqualTo(2L);
    assertThat(row.isNullAt(20)).isTrue();
  }
}
