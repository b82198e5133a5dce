package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.SchemaEvolutionMode;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10 item 2: bronze's parser against Spark's own JSON reader (same schema, PERMISSIVE, a
 * corrupt-record column) over a corpus of conflicts at every level, big and tiny numbers, NaN and
 * Infinity in every numeric type, dates and timestamps Spark accepts and rejects, unicode escapes,
 * empty objects and arrays and corrupt lines of every shape. Per line and column: where bronze has
 * a value it equals Spark's; where Spark has a value and bronze does not, bronze rescued the field
 * (stricter by design: rounding, overflow, wrap-around, one bad element); a line Spark cannot read
 * is corrupt in bronze too. The exceptions are listed in {@link #STRICTER_CORRUPT}.
 */
class SparkJsonReaderDifferentialTest extends SparkTestBase {
  static final String SCHEMA =
      "i INT, l BIGINT, t TINYINT, sm SMALLINT, f FLOAT, d DOUBLE, dec DECIMAL(10,2), b BOOLEAN,"
          + " s STRING, dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, bin BINARY, arr ARRAY<INT>,"
          + " m MAP<STRING, DOUBLE>, st STRUCT<x: INT, y: STRING, z: ARRAY<DECIMAL(5,1)>>,"
          + " arrst ARRAY<STRUCT<k: STRING, v: BIGINT>>";

  @TempDir Path dir;

  static final String[] INTEGERS = {
    "0",
    "-0",
    "1",
    "-1",
    "127",
    "128",
    "-128",
    "-129",
    "255",
    "32767",
    "32768",
    "-32769",
    "2147483647",
    "2147483648",
    "-2147483649",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "1.0",
    "1e2",
    "\"1\"",
    "true",
    "null",
    "NaN",
    "[1]",
    "{\"a\":1}",
    "\"\""
  };
  static final String[] FLOATS = {
    "1.5",
    "-2.5e-3",
    "0.1",
    "1e400",
    "-1e400",
    "1e-400",
    "3.5e38",
    "1e-50",
    "NaN",
    "Infinity",
    "-Infinity",
    "\"NaN\"",
    "\"Infinity\"",
    "\"-INF\"",
    "\"+INF\"",
    "\"INF\"",
    "\"1.5\"",
    "12345678901234567.891",
    "-0.0",
    "7",
    "\"\"",
    "false"
  };
  static final String[] DECIMALS = {
    "1.5",
    "12.345",
    "1.005",
    "12345678.9",
    "123456789.0",
    "99999999.99",
    "-99999999.99",
    "NaN",
    "\"12.5\"",
    "\"1,234.5\"",
    "\"abc\"",
    "1e-5",
    "0e10",
    "-0.00",
    "1E2",
    "1.50000000000000000000e3",
    "\" 12\"",
    "\"1e2\"",
    "Infinity",
    "\"\"",
    "[1.5]"
  };
  // Not here: 1e300000000, on which Spark's reader itself computes 10^300000000 for hours (the
  // parser test covers bronze's bounded handling of it).
  static final String[] BOOLEANS = {"true", "false", "\"true\"", "1", "0", "null", "\"\""};
  static final String[] STRINGS = {
    "\"abc\"", "12.50", "1e400", "true", "{\"a\":[1,2.50]}", "[1,\"x\"]", "\"\\u00e9\u00e9\"",
    "\"\\ud83d\\ude00\"", "\"\"", "\"tab\\tnew\\nline\"", "\"\\u0000\"", "{}", "[]", "-0"
  };
  static final String[] DATES = {
    "\"2024-02-29\"",
    "\"2023-02-29\"",
    "\"2024-2\"",
    "\"2024\"",
    "\"2024-01-05T10:00:00\"",
    "\"2024-01-05 10:00\"",
    "\"12345\"",
    "\"0001-01-01\"",
    "\"+10000-01-01\"",
    "\"300000-01-01\"",
    "\"1582-10-10\"",
    "\"abc\"",
    "\"\"",
    "20240101",
    "\"2024/01/05\"",
    "\"2024-1-5\"",
    "\" 2024-01-05\"",
    "\"2024-01-05Z\""
  };
  static final String[] TIMESTAMPS = {
    "\"2024-02-29T10:11:12Z\"",
    "\"2024-02-29T10:11:12.123456+01:00\"",
    "\"2024-02-29 10:11:12\"",
    "\"2024-02-29\"",
    "\"2024-02-29T10:11:12.1234567Z\"",
    "1700000000",
    "1700000000000000",
    "-1",
    "\"300000-01-01T00:00:00Z\"",
    "\"1000-01-01T00:00:00Z\"",
    "\"2024-02-29T25:00:00Z\"",
    "\"abc\"",
    "1.5",
    "\"2024-02-29T10:11:12 UTC\"",
    "\"2024-02-29T10:11:12+0100\"",
    "\"2024-02-29T10:11\"",
    "99999999999999",
    "\"\""
  };
  static final String[] NTZ = {
    "\"2024-02-29T10:11:12\"", "\"2024-02-29 10:11:12.5\"", "\"2024-02-29T10:11:12Z\"",
    "\"2024-02-29\"", "\"x\"", "0"
  };
  static final String[] BINARIES = {"\"AAEC\"", "\"AAE=\"", "\"AAE\"", "\"@@\"", "\"\"", "12"};
  static final String[] ARRAYS = {
    "[1,2,3]", "[]", "[null]", "[1,\"2\"]", "[2147483648]", "\"x\"", "{\"a\":1}", "[[1]]", "[1.0]"
  };
  static final String[] MAPS = {
    "{\"a\":1.5}",
    "{}",
    "{\"a\":null}",
    "{\"a\":\"x\"}",
    "{\"a\":1,\"a\":2}",
    "[1]",
    "\"x\"",
    "{\"a\":1e400}",
    "{\"\\u00e9\":NaN}"
  };
  static final String[] STRUCTS = {
    "{\"x\":1,\"y\":\"a\",\"z\":[1.5]}", "{}", "{\"x\":\"1\"}", "{\"w\":1}", "{\"X\":1}",
    "{\"z\":[1.55]}", "{\"x\":1,\"x\":2}", "5", "{\"z\":[1,\"a\"]}", "{\"y\":{\"deep\":[1]}}"
  };
  static final String[] STRUCT_ARRAYS = {
    "[{\"k\":\"a\",\"v\":1}]",
    "[{\"k\":\"a\",\"extra\":1}]",
    "[{\"k\":\"a\",\"v\":\"1\"}]",
    "[{}]",
    "[null]",
    "[{\"k\":\"a\",\"k\":\"b\"}]",
    "[{\"k\":1}]"
  };
  static final String[] CORRUPT = {
    "not json",
    "{",
    "{\"i\":1",
    "{\"i\":1} x",
    "\"str\"",
    "123",
    "{i: 1}",
    "\u000B",
    "{\"i\":01}",
    "{\"i\":1,}",
    "// comment",
    "{\"s\":\"\\x\"}",
    "{\"s\":\"a\u0001b\"}",
    "null",
    "{\"i\":1}{\"i\":2}",
    "{\"a\":[1,2}",
    "\u00A0{\"i\":1}",
    "{\"i\":+1}",
    "{\"d\":.5}",
    "[" + "[".repeat(1000) + "]".repeat(1000) + "]".substring(0, 0) + "x"
  };

  /**
   * Lines bronze keeps as corrupt although Spark's reader reads them, by design: Spark ignores what
   * follows the first object on a line (a line is one record here: the rest would be lost).
   */
  static final List<String> STRICTER_CORRUPT = List.of("{\"i\":1} x", "{\"i\":1}{\"i\":2}");

  static List<String> corpus() {
    List<String> lines = new ArrayList<>();
    add(lines, "i", INTEGERS);
    add(lines, "l", INTEGERS);
    add(lines, "t", INTEGERS);
    add(lines, "sm", INTEGERS);
    add(lines, "f", FLOATS);
    add(lines, "d", FLOATS);
    add(lines, "dec", DECIMALS);
    add(lines, "b", BOOLEANS);
    add(lines, "s", STRINGS);
    add(lines, "dt", DATES);
    add(lines, "ts", TIMESTAMPS);
    add(lines, "ntz", NTZ);
    add(lines, "bin", BINARIES);
    add(lines, "arr", ARRAYS);
    add(lines, "m", MAPS);
    add(lines, "st", STRUCTS);
    add(lines, "arrst", STRUCT_ARRAYS);
    lines.addAll(List.of(CORRUPT));
    lines.add("{}");
    lines.add("{'i': 1, 's': 'single'}");
    lines.add("{\"i\":1,\"unknown\":{\"n\":12345678901234567.891}}");
    lines.add("{\"i\":1,\"I\":2}");
    lines.add(" {\"i\" : 1 , \"l\" : 2 } ");
    lines.add("{\"st\":{\"x\":1},\"st\":{\"y\":\"b\"}}");
    return lines;
  }

  private static void add(List<String> lines, String field, String[] values) {
    for (String value : values) {
      lines.add("{\"" + field + "\":" + value + "}");
    }
  }

  @Test
  void typedValuesEqualSparksJsonReaderOrAreRescued() throws IOException {
    List<String> lines = corpus();
    assertThat(lines.size()).isGreaterThanOrEqualTo(150);
    Path file = dir.resolve("corpus.json");
    Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    StructType schema = StructType.fromDDL(SCHEMA);
    StructType withCorrupt = schema.add("_corrupt_record", "string");
    List<InternalRow> spark =
        SparkTestBase.spark
            .read()
            .schema(withCorrupt)
            .option("mode", "PERMISSIVE")
            .option("columnNameOfCorruptRecord", "_corrupt_record")
            .json(file.toString())
            .queryExecution()
            .toRdd()
            .toJavaRDD()
            .map(InternalRow::copy)
            .collect();
    assertThat(spark).hasSize(lines.size());

    RescuingJsonParser parser = new RescuingJsonParser(schema, SchemaEvolutionMode.RESCUE);
    List<String> differences = new ArrayList<>();
    int typedEqual = 0;
    int rescuedStricter = 0;
    for (int n = 0; n < lines.size(); n++) {
      String line = lines.get(n);
      RescuingJsonParser.Parsed ours = parser.parse(line, "corpus.json");
      InternalRow theirs = spark.get(n);
      boolean sparkCorrupt = !theirs.isNullAt(schema.size());
      if (ours.corrupt() != null) {
        boolean sparkReadNothing = true;
        for (int c = 0; c < schema.size(); c++) {
          sparkReadNothing &= theirs.isNullAt(c);
        }
        if (!(sparkCorrupt && sparkReadNothing) && !STRICTER_CORRUPT.contains(line)) {
          differences.add("line " + n + " " + line + ": corrupt here, Spark read it");
        }
        continue;
      }
      for (int c = 0; c < schema.size(); c++) {
        StructField field = schema.fields()[c];
        DataType type = field.dataType();
        String mine = InternalValues.render(ours.values()[c], type);
        String sparks =
            InternalValues.render(theirs.isNullAt(c) ? null : theirs.get(c, type), type);
        if (ours.values()[c] != null) {
          if (!mine.equals(sparks) && !nestedRescued(ours, theirs, c, type)) {
            differences.add(
                "line "
                    + n
                    + " "
                    + line
                    + ": "
                    + field.name()
                    + " "
                    + mine
                    + " vs Spark "
                    + sparks);
          } else {
            typedEqual++;
          }
        } else if (theirs.isNullAt(c)) {
          continue;
        } else if (ours.rescued() == null || !ours.rescued().contains("\"" + field.name() + "\"")) {
          differences.add(
              "line "
                  + n
                  + " "
                  + line
                  + ": "
                  + field.name()
                  + " null and not rescued, Spark "
                  + sparks);
        } else {
          rescuedStricter++;
        }
      }
    }
    assertThat(differences).isEmpty();
    assertThat(typedEqual).isGreaterThan(100);
    assertThat(rescuedStricter).isGreaterThan(10);
  }

  /**
   * A struct column that differs from Spark's only where bronze rescued a sub-field (Spark rounded
   * {@code 1.55} into {@code DECIMAL(5,1)}, say): each sub-field equal, or null here and rescued.
   */
  private static boolean nestedRescued(
      RescuingJsonParser.Parsed ours, InternalRow sparkRow, int column, DataType type) {
    if (!(type instanceof StructType struct)
        || sparkRow.isNullAt(column)
        || ours.rescued() == null) {
      return false;
    }
    InternalRow theirs = sparkRow.getStruct(column, struct.size());
    InternalRow mine = (InternalRow) ours.values()[column];
    for (int i = 0; i < struct.size(); i++) {
      DataType t = struct.fields()[i].dataType();
      String a = InternalValues.render(mine.isNullAt(i) ? null : mine.get(i, t), t);
      String b = InternalValues.render(theirs.isNullAt(i) ? null : theirs.get(i, t), t);
      if (!a.equals(b)
          && !(mine.isNullAt(i)
              && ours.rescued().contains("\"" + struct.fields()[i].name() + "\""))) {
        return false;
      }
    }
    return true;
  }
}
