package io.replaysafe.bronze;

import static io.replaysafe.bronze.ValueConversion.MISMATCH;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.config.CsvOptions;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * CSV values to Spark values as Spark's CSV reader converts them, where bronze rescues what that
 * reader would lose; and how the reader tells that a file ended inside a quoted value.
 */
class CsvValueConversionTest {
  private final CsvValueConversion conversion = new CsvValueConversion("UTC");

  Object convert(String text, org.apache.spark.sql.types.DataType type) {
    return conversion.convert(text, type);
  }

  @Test
  void anEmptyValueIsNullForEveryType() {
    assertThat(convert("", DataTypes.StringType)).isNull();
    assertThat(convert("", DataTypes.LongType)).isNull();
    assertThat(convert(null, DataTypes.DateType)).isNull();
  }

  @Test
  void integralsTakeASignAndDigitsAndRescueWhatDoesNotFit() {
    assertThat(convert("-12", DataTypes.LongType)).isEqualTo(-12L);
    assertThat(convert("+7", DataTypes.IntegerType)).isEqualTo(7);
    assertThat(convert("127", DataTypes.ByteType)).isEqualTo((byte) 127);
    assertThat(convert("3000000000", DataTypes.IntegerType)).isSameAs(MISMATCH);
    assertThat(convert("99999999999999999999", DataTypes.LongType)).isSameAs(MISMATCH);
    assertThat(convert(" 1", DataTypes.LongType)).isSameAs(MISMATCH);
    assertThat(convert("1.0", DataTypes.LongType)).isSameAs(MISMATCH);
  }

  @Test
  void floatingPointTakesSparksSpecialValuesAndRescuesOverflowAndUnderflow() {
    assertThat(convert("1.5", DataTypes.DoubleType)).isEqualTo(1.5);
    assertThat((Double) convert("NaN", DataTypes.DoubleType)).isNaN();
    assertThat(convert("Inf", DataTypes.DoubleType)).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(convert("-Inf", DataTypes.FloatType)).isEqualTo(Float.NEGATIVE_INFINITY);
    assertThat(convert("-Infinity", DataTypes.DoubleType)).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(convert("1e400", DataTypes.DoubleType)).isSameAs(MISMATCH);
    assertThat(convert("1e-400", DataTypes.DoubleType)).isSameAs(MISMATCH);
    assertThat(convert("0e-400", DataTypes.DoubleType)).isEqualTo(0.0);
    assertThat(convert("1e39", DataTypes.FloatType)).isSameAs(MISMATCH);
    assertThat(convert("abc", DataTypes.DoubleType)).isSameAs(MISMATCH);
  }

  @Test
  void decimalsRescueRoundingOverflowAndThousandsSeparators() {
    var type = DataTypes.createDecimalType(10, 2);
    assertThat(convert("12.5", type)).isEqualTo(Decimal.apply(new BigDecimal("12.50"), 10, 2));
    assertThat(convert("1e3", type)).isEqualTo(Decimal.apply(new BigDecimal("1000.00"), 10, 2));
    assertThat(convert("1.500", type)).isEqualTo(Decimal.apply(new BigDecimal("1.50"), 10, 2));
    assertThat(convert("1.005", type)).isSameAs(MISMATCH);
    assertThat(convert("123456789", type)).isSameAs(MISMATCH);
    assertThat(convert("1,5", type)).isSameAs(MISMATCH);
    assertThat(convert("NaN", type)).isSameAs(MISMATCH);
  }

  @Test
  void booleansDatesTimestampsStringsAndBinary() {
    assertThat(convert("TRUE", DataTypes.BooleanType)).isEqualTo(true);
    assertThat(convert("False", DataTypes.BooleanType)).isEqualTo(false);
    assertThat(convert("yes", DataTypes.BooleanType)).isSameAs(MISMATCH);
    assertThat(convert("2024-02-29", DataTypes.DateType))
        .isEqualTo((int) LocalDate.of(2024, 2, 29).toEpochDay());
    assertThat(convert("2024-02-30", DataTypes.DateType)).isSameAs(MISMATCH);
    assertThat(convert("day 3", DataTypes.DateType)).isSameAs(MISMATCH);
    assertThat(convert("1970-01-01 00:00:01", DataTypes.TimestampType)).isEqualTo(1_000_000L);
    assertThat(convert("1970-01-01T00:00:01+01:00", DataTypes.TimestampType))
        .isEqualTo(-3_599_000_000L);
    assertThat(convert("noon", DataTypes.TimestampType)).isSameAs(MISMATCH);
    assertThat(convert("1970-01-01T00:00:02", DataTypes.TimestampNTZType)).isEqualTo(2_000_000L);
    assertThat(convert(" a, b ", DataTypes.StringType)).isEqualTo(UTF8String.fromString(" a, b "));
    assertThat(convert("caf\u00e9", DataTypes.BinaryType))
        .isEqualTo("caf\u00e9".getBytes(StandardCharsets.UTF_8));
  }

  static boolean endsInsideQuote(String text, CsvOptions options) throws IOException {
    return readAll(text, options, Long.MAX_VALUE).endsInsideQuote();
  }

  static CsvRecordReader.QuoteTracking readAll(String text, CsvOptions options, long limit)
      throws IOException {
    CsvRecordReader.QuoteTracking in =
        new CsvRecordReader.QuoteTracking(new StringReader(text), options, limit, "t.csv");
    char[] buffer = new char[3];
    while (in.read(buffer, 0, buffer.length) >= 0) {
      // read it all, three characters at a time
    }
    return in;
  }

  @Test
  void theReaderTellsWhenAFileEndsInsideAQuotedValue() throws IOException {
    CsvOptions csv = CsvOptions.DEFAULT;
    assertThat(endsInsideQuote("a,\"b\"\n", csv)).isFalse();
    assertThat(endsInsideQuote("a,\"b\"", csv)).isFalse();
    assertThat(endsInsideQuote("a,\"b\n", csv)).isTrue();
    assertThat(endsInsideQuote("a,\"b,\nc,d\n", csv)).isTrue();
    assertThat(endsInsideQuote("a,\"b\"\"", csv)).isTrue(); // a doubled quote closes nothing
    assertThat(endsInsideQuote("a,\"b\"\"\"", csv)).isFalse();
    assertThat(endsInsideQuote("a,\"b\\\"", csv)).isTrue(); // an escaped quote neither
    assertThat(endsInsideQuote("a,b\"c\n", csv)).isFalse(); // a quote inside a value is text
    CsvOptions pipes = new CsvOptions(true, "||", '"', '\\', "UTF-8");
    assertThat(endsInsideQuote("a||\"b", pipes)).isTrue();
    assertThat(endsInsideQuote("a|\"b", pipes)).isFalse();
  }

  @Test
  void aRecordOverTheLimitFailsTheReadCountingTheLinesOfAQuotedValue() throws IOException {
    CsvOptions csv = CsvOptions.DEFAULT;
    readAll("123456789\n123456789\n", csv, 9); // the line break is not counted
    assertThatThrownBy(() -> readAll("1,\"4567\n9\"\n", csv, 9))
        .isInstanceOf(LineTooLongException.class)
        .hasMessageStartingWith(
            "Cannot read t.csv: a record is more than source.maxLineBytes (9) characters long (a"
                + " line, or the lines of one quoted value;");
  }
}
