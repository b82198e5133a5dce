package io.replaysafe.common.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.io.JsonLinesExport;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Quoting as a table, and the quoted names resolving to exactly one column in Spark. */
class SqlNamesTest extends SparkTestBase {
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "a          | `a`",
        "order_id   | `order_id`",
        "a.b        | `a.b`",
        "\"a b\"    | `a b`",
        "a`b        | `a``b`",
        "`a`        | ```a```",
        "``         | ``````",
        "select     | `select`",
        "\"\"       | ``",
        "s3a://lake/x`y | `s3a://lake/x``y`",
      })
  void quotesAndEscapesBackticks(String name, String quoted) {
    assertThat(SqlNames.quote(name)).isEqualTo(quoted);
  }

  static final List<String> AWKWARD = List.of("a.b", "x`y", "sp ace", "select", "`", "plain");

  @Test
  void aQuotedNameSelectsExactlyThatColumnAndNoNestedField() {
    StructType schema = new StructType();
    for (String name : AWKWARD) {
      schema = schema.add(name, DataTypes.StringType);
    }
    // A struct "a" with field "b" next to the column "a.b": the quoted name must not reach into it.
    schema = schema.add("a", new StructType().add("b", DataTypes.StringType));
    Dataset<Row> df =
        spark.createDataFrame(
            List.of(RowFactory.create("1", "2", "3", "4", "5", "6", RowFactory.create("nested"))),
            schema);

    assertThat(rows(df.select(SqlNames.columns(AWKWARD)))).containsExactly("1|2|3|4|5|6");
    assertThat(rows(df.selectExpr(SqlNames.quote("a.b"), "a.b"))).containsExactly("1|nested");
  }

  @Test
  void theExportReadsColumnsWithBackticksInTheirNames() {
    Dataset<Row> df =
        spark.createDataFrame(
            List.of(RowFactory.create("2", "b"), RowFactory.create("1", "a")),
            new StructType().add("x`y", DataTypes.StringType).add("a.b", DataTypes.StringType));
    StringWriter out = new StringWriter();

    long written = JsonLinesExport.write(df, List.of("x`y"), new PrintWriter(out));

    assertThat(written).isEqualTo(2);
    assertThat(out.toString().lines())
        .containsExactly("{\"x`y\":\"1\",\"a.b\":\"a\"}", "{\"x`y\":\"2\",\"a.b\":\"b\"}");
  }
}
