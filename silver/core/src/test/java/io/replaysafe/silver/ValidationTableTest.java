package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Step 2 as a table: a bronze row's key columns ({@code k} upper_trim, {@code k2}), sequence
 * columns ({@code s}, {@code t}) and corrupt record give exactly one reason and message, or none.
 * The rows are validated together by {@link BatchPreparation#validate}, one Spark job.
 */
class ValidationTableTest extends SparkTestBase {
  static final String CASES =
      """
      valid              | a      | 1    | 1    | 1    | NULL   | NULL                          | NULL
      zero sequence      | a      | 1    | 0    | 0    | NULL   | NULL                          | NULL
      largest sequence   | a      | 1    | 9223372036854775807 | 2147483647 | NULL | NULL  | NULL
      control characters trimmed | "\\tb\\n" | 1 | 1 | 1 | NULL | NULL                        | NULL
      null key           | NULL   | 1    | 1    | 1    | NULL   | INVALID_NULL_KEY              | key column 'k' is null (missing or not convertible)
      blank key          | "   "  | 1    | 1    | 1    | NULL   | INVALID_BLANK_KEY             | key column 'k' is blank after normalisation
      empty key          | ""     | 1    | 1    | 1    | NULL   | INVALID_BLANK_KEY             | key column 'k' is blank after normalisation
      second key null    | a      | NULL | 1    | 1    | NULL   | INVALID_NULL_KEY              | key column 'k2' is null (missing or not convertible)
      both keys null     | NULL   | NULL | 1    | 1    | NULL   | INVALID_NULL_KEY              | key column 'k2' is null (missing or not convertible)
      null sequence      | a      | 1    | NULL | 1    | NULL   | INVALID_NULL_SEQUENCE         | sequence column 's' is null
      second seq null    | a      | 1    | 1    | NULL | NULL   | INVALID_NULL_SEQUENCE         | sequence column 't' is null
      negative sequence  | a      | 1    | -1   | 1    | NULL   | INVALID_NEGATIVE_SEQUENCE     | sequence column 's' is negative
      second seq negative| a      | 1    | 1    | -1   | NULL   | INVALID_NEGATIVE_SEQUENCE     | sequence column 't' is negative
      null beats negative| a      | 1    | -1   | NULL | NULL   | INVALID_NULL_SEQUENCE         | sequence column 't' is null
      key beats sequence | NULL   | 1    | NULL | 1    | NULL   | INVALID_NULL_KEY              | key column 'k' is null (missing or not convertible)
      blank beats negative | " "  | 1    | -1   | 1    | NULL   | INVALID_BLANK_KEY             | key column 'k' is blank after normalisation
      corrupt line       | NULL   | NULL | NULL | NULL | "{oops" | INVALID_CORRUPT_RECORD       | the line is not a JSON object
      corrupt beats all  | a      | 1    | 1    | 1    | "{oops" | INVALID_CORRUPT_RECORD       | the line is not a JSON object
      """;

  static Map<String, String> validated;

  @BeforeAll
  static void validateTheWholeTable(@TempDir Path dir) {
    SilverContract contract =
        TestContracts.contract(
            dir,
            "k STRING, k2 BIGINT, s BIGINT, t INT, name STRING",
            "keys: [k, k2]\nkeyNormalization: {k: upper_trim}\nsequenceBy: [s, t]\n");
    List<Row> rows = new ArrayList<>();
    for (String line : CASES.strip().split("\n")) {
      String[] f = line.split("\\|");
      rows.add(
          RowFactory.create(
              text(f[1]),
              number(f[2]),
              number(f[3]),
              number(f[4]) == null ? null : number(f[4]).intValue(),
              f[0].strip(),
              null,
              text(f[5])));
    }
    StructType schema =
        StructType.fromDDL(
            "k STRING, k2 BIGINT, s BIGINT, t INT, name STRING, _rescued_data STRING,"
                + " _corrupt_record STRING");
    Dataset<Row> bronze = spark.createDataFrame(rows, schema);
    validated = new HashMap<>();
    for (Row r :
        BatchPreparation.validate(BatchPreparation.identity(bronze, contract), contract)
            .select("name", BatchPreparation.INVALID_REASON, BatchPreparation.INVALID_MESSAGE)
            .collectAsList()) {
      validated.put(r.getString(0), r.getString(1) + "|" + r.getString(2));
    }
  }

  @ParameterizedTest(name = "{0}: {6}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', nullValues = "NULL", textBlock = CASES)
  void eachRowHasOneReasonOrNone(
      String name,
      String key,
      Long key2,
      Long sequence,
      Integer tieBreak,
      String corrupt,
      String reason,
      String message) {
    assertThat(validated.get(name)).isEqualTo(reason + "|" + message);
  }

  private static String text(String field) {
    String v = field.strip();
    if (v.equals("NULL")) {
      return null;
    }
    if (v.startsWith("\"")) {
      v = v.substring(1, v.length() - 1);
    }
    return v.replace("\\t", "\t").replace("\\n", "\n");
  }

  private static Long number(String field) {
    String v = field.strip();
    return v.equals("NULL") ? null : Long.valueOf(v);
  }
}
