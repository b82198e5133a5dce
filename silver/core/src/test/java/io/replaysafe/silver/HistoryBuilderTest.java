package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The SCD type 2 rules of {@link HistoryBuilder} as a table, without Spark: one key's events (in
 * any order) and the versions built from them. {@code status} is tracked, {@code note} is not.
 *
 * <p>An event is {@code sequence:status/note} or {@code sequence:DELETE} ({@code -} is null); a
 * version is {@code s,status,note[start,end)}.
 */
class HistoryBuilderTest {
  static final Path DIR = Path.of("/unused");
  static final String SCHEMA = "k BIGINT, s BIGINT, status STRING, note STRING, op STRING";
  static final String SCD2 =
      "keys: [k]\nsequenceBy: [s]\napplyAsDeletes: \"op = 'DELETE'\"\nexceptColumnList: [op]\n"
          + "storedAsScdType: 2\ntrackHistoryColumnList: [status]\n";

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "1:A/x                 | 1,A,x[1,null)",
        "1:A/x 2:B/x           | 1,A,x[1,2); 2,B,x[2,null)",
        // A change confined to untracked columns updates the current version in place.
        "1:A/x 2:A/y           | 2,A,y[1,null)",
        "1:A/x 2:A/x           | 2,A,x[1,null)",
        "1:A/x 2:B/x 3:A/x     | 1,A,x[1,2); 2,B,x[2,3); 3,A,x[3,null)",
        "1:A/x 2:-/x           | 1,A,x[1,2); 2,null,x[2,null)",
        // A delete closes the current version at its sequence and opens none.
        "1:A/x 2:DELETE        | 1,A,x[1,2)",
        "2:DELETE              | ''",
        "1:A/x 2:DELETE 3:DELETE | 1,A,x[1,2)",
        "1:A/x 2:DELETE 3:A/x  | 1,A,x[1,2); 3,A,x[3,null)",
        // Late events land where they belong: between versions, before the first, before a delete.
        "1:A/x 3:C/x 2:B/x     | 1,A,x[1,2); 2,B,x[2,3); 3,C,x[3,null)",
        "5:B/x 2:A/x           | 2,A,x[2,5); 5,B,x[5,null)",
        "1:A/x 3:DELETE 2:B/x  | 1,A,x[1,2); 2,B,x[2,3)",
        "1:A/x 3:DELETE 2:A/y  | 2,A,y[1,3)",
      })
  void buildsTheVersionsOfOneKey(String events, String versions) {
    HistoryBuilder builder = new HistoryBuilder(TestContracts.contract(DIR, SCHEMA, SCD2));
    List<Row> rows = parse(events);

    assertThat(render(builder, rows)).isEqualTo(versions);
    // Events arrive in any order: the history is the same.
    List<Row> reversed = new ArrayList<>(rows);
    Collections.reverse(reversed);
    assertThat(render(builder, reversed)).isEqualTo(versions);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        // A null keeps the value before it, so the tracked status did not change: in place.
        "1:A/x 2:-/y           | 2,A,y[1,null)",
        "1:A/x 2:-/- 3:B/-     | 2,A,x[1,3); 3,B,x[3,null)",
        // A delete ends the key: nothing carries over into the version after it.
        "1:A/x 2:DELETE 3:-/y  | 1,A,x[1,2); 3,null,y[3,null)",
      })
  void ignoreNullUpdatesCarriesTheLastValueForward(String events, String versions) {
    HistoryBuilder builder =
        new HistoryBuilder(TestContracts.contract(DIR, SCHEMA, SCD2 + "ignoreNullUpdates: true\n"));

    assertThat(render(builder, parse(events))).isEqualTo(versions);
  }

  @Test
  void aVersionCarriesTheProvenanceOfTheEventThatLastChangedIt() {
    SilverContract contract = TestContracts.contract(DIR, SCHEMA, SCD2);
    HistoryBuilder builder = new HistoryBuilder(contract);

    List<Row> versions =
        build(
            builder,
            List.of(
                event(1, "A", "x", false, "h1", "f1", 10L),
                event(2, "A", "y", false, "h2", "f2", 11L)));

    StructType history = contract.historySchema();
    assertThat(Arrays.asList(history.fieldNames()))
        .containsExactly(
            "k",
            "s",
            "status",
            "note",
            "__START_AT",
            "__END_AT",
            "__payload_hash",
            "__source_file",
            "__bronze_version",
            "__applied_at");
    assertThat(versions)
        .containsExactly(RowFactory.create(7L, 2L, "A", "y", 1L, null, "h2", "f2", 11L, null));
  }

  @Test
  void aSequenceOfSeveralColumnsIsStoredAsAStructAndComparedInOrder() {
    SilverContract contract =
        TestContracts.contract(
            DIR,
            "k BIGINT, epoch INT, s BIGINT, status STRING",
            "keys: [k]\nsequenceBy: [epoch, s]\nstoredAsScdType: 2\n");
    HistoryBuilder builder = new HistoryBuilder(contract);
    Row later = RowFactory.create(7L, 2, 1L, "B", false, "h2", "f", 1L);
    Row earlier = RowFactory.create(7L, 1, 9L, "A", false, "h1", "f", 1L);

    List<Row> versions = build(builder, List.of(later, earlier));

    assertThat(versions)
        .containsExactly(
            RowFactory.create(
                7L,
                1,
                9L,
                "A",
                RowFactory.create(1, 9L),
                RowFactory.create(2, 1L),
                "h1",
                "f",
                1L,
                null),
            RowFactory.create(7L, 2, 1L, "B", RowFactory.create(2, 1L), null, "h2", "f", 1L, null));
  }

  /** Events in the events table's layout: k, s, status, note, __is_delete, hash, file, version. */
  static List<Row> parse(String events) {
    List<Row> rows = new ArrayList<>();
    for (String e : events.trim().split("\\s+")) {
      String[] parts = e.split(":");
      long s = Long.parseLong(parts[0]);
      if (parts[1].equals("DELETE")) {
        rows.add(event(s, null, null, true, "h" + s, "f" + s, s));
      } else {
        String[] values = parts[1].split("/");
        rows.add(event(s, nullable(values[0]), nullable(values[1]), false, "h" + s, "f" + s, s));
      }
    }
    return rows;
  }

  static Row event(
      long s, String status, String note, boolean delete, String hash, String file, Long version) {
    return RowFactory.create(7L, s, status, note, delete, hash, file, version);
  }

  private static String nullable(String value) {
    return value.equals("-") ? null : value;
  }

  static List<Row> build(HistoryBuilder builder, List<Row> events) {
    Iterator<Row> result = builder.call(RowFactory.create(7L), events.iterator());
    List<Row> versions = new ArrayList<>();
    result.forEachRemaining(versions::add);
    return versions;
  }

  static String render(HistoryBuilder builder, List<Row> events) {
    return build(builder, events).stream()
        .map(
            v -> v.get(1) + "," + v.get(2) + "," + v.get(3) + "[" + v.get(4) + "," + v.get(5) + ")")
        .collect(Collectors.joining("; "));
  }
}
