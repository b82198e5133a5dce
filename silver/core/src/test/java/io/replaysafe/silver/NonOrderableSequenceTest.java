package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sequence that cannot be ordered (NaN, +Infinity, -Infinity in a DOUBLE or FLOAT sequence
 * column, alone or as one field of a several-column sequence) is invalid: {@code
 * INVALID_SEQUENCE_NOT_ORDERABLE}, quarantined or rejected by {@code onInvalid}, never stored.
 */
class NonOrderableSequenceTest extends SparkTestBase {
  @TempDir Path dir;

  /** name | d (DOUBLE) | f (FLOAT) | reason | message. */
  static final String CASES =
      """
      valid            | 1.5       | 2.0       | NULL                           | NULL
      largest finite   | 1.7976931348623157E308 | 3.4028235E38 | NULL           | NULL
      NaN              | NaN       | 1.0       | INVALID_SEQUENCE_NOT_ORDERABLE | sequence column 'd' is NaN, which has no order
      plus infinity    | Infinity  | 1.0       | INVALID_SEQUENCE_NOT_ORDERABLE | sequence column 'd' is Infinity, which has no order
      minus infinity   | -Infinity | 1.0       | INVALID_SEQUENCE_NOT_ORDERABLE | sequence column 'd' is -Infinity, which has no order
      NaN second field | 1.0       | NaN       | INVALID_SEQUENCE_NOT_ORDERABLE | sequence column 'f' is NaN, which has no order
      inf second field | 1.0       | -Infinity | INVALID_SEQUENCE_NOT_ORDERABLE | sequence column 'f' is -Infinity, which has no order
      null beats NaN   | NULL      | NaN       | INVALID_NULL_SEQUENCE          | sequence column 'd' is null
      NaN after null   | NaN       | NULL      | INVALID_NULL_SEQUENCE          | sequence column 'f' is null
      """;

  @Test
  void eachNonOrderableSequenceGetsItsReasonAndMessage() {
    SilverContract contract =
        TestContracts.contract(
            dir, "k STRING, d DOUBLE, f FLOAT, name STRING", "keys: [k]\nsequenceBy: [d, f]\n");
    List<Row> rows = new ArrayList<>();
    Map<String, String> expected = new HashMap<>();
    for (String line : CASES.strip().split("\n")) {
      String[] c = line.split("\\|");
      rows.add(
          RowFactory.create(
              "a",
              c[1].isBlank() || c[1].strip().equals("NULL") ? null : Double.valueOf(c[1].strip()),
              c[2].strip().equals("NULL") ? null : Float.valueOf(c[2].strip()),
              c[0].strip(),
              null,
              null));
      expected.put(c[0].strip(), nullable(c[3]) + "|" + nullable(c[4]));
    }
    var bronze =
        spark.createDataFrame(
            rows,
            StructType.fromDDL(
                "k STRING, d DOUBLE, f FLOAT, name STRING, _rescued_data STRING,"
                    + " _corrupt_record STRING"));
    Map<String, String> actual = new HashMap<>();
    for (Row r :
        BatchPreparation.validate(BatchPreparation.identity(bronze, contract), contract)
            .select("name", BatchPreparation.INVALID_REASON, BatchPreparation.INVALID_MESSAGE)
            .collectAsList()) {
      actual.put(r.getString(0), r.getString(1) + "|" + r.getString(2));
    }
    assertThat(actual).isEqualTo(expected);
  }

  private static String nullable(String field) {
    return field.strip().equals("NULL") ? "null" : field.strip();
  }

  @Test
  void aNaNVersionIsQuarantinedAndNeverWedgesItsKey() {
    SilverHarness p =
        new SilverHarness(
            spark,
            dir,
            "order_id BIGINT, version DOUBLE, status STRING",
            "keys: [order_id]\nsequenceBy: [version]\nonInvalid: quarantine\n");
    p.deliver(
        "{\"order_id\":1,\"version\":1.0,\"status\":\"Created\"}",
        "{\"order_id\":2,\"version\":NaN,\"status\":\"Created\"}",
        "{\"order_id\":2,\"version\":\"Infinity\",\"status\":\"Created\"}");
    p.run();
    p.deliver(
        "{\"order_id\":1,\"version\":2.0,\"status\":\"Shipped\"}",
        "{\"order_id\":2,\"version\":1.0,\"status\":\"Created\"}");

    SilverResult second = p.run();

    assertThat(p.silverRows()).containsExactly("1|2.0|Shipped", "2|1.0|Created");
    assertThat(rowsOf(p.quarantine().select("reason", "message", "sequence").orderBy("sequence")))
        .containsExactly(
            "INVALID_SEQUENCE_NOT_ORDERABLE|sequence column 'version' is Infinity, which has no"
                + " order|{\"version\":\"Infinity\"}",
            "INVALID_SEQUENCE_NOT_ORDERABLE|sequence column 'version' is NaN, which has no"
                + " order|{\"version\":\"NaN\"}");
    assertThat(second.total(BatchReport::olderIgnored)).isZero();
    assertThat(second.total(BatchReport::inserted)).isEqualTo(1);
  }
}
