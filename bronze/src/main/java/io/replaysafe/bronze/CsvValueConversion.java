package io.replaysafe.bronze;

import static io.replaysafe.bronze.ValueConversion.MISMATCH;

import java.io.Serializable;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Option;

/**
 * One CSV value (text) to the Spark value of a declared flat type, or {@link
 * ValueConversion#MISMATCH} when it does not fit. The accepted inputs follow Spark's CSV reader
 * ({@code UnivocityParser.makeConverter}) with its default options, and the limits are the JSON
 * path's ({@link ScalarConversion}): where Spark's reader would round a decimal, overflow a float
 * to infinity or read {@code 1,5} as {@code 15}, this returns MISMATCH and the caller rescues the
 * text. Never throws for a value that does not fit.
 *
 * <p>An empty value is null for every type, as in Spark's reader (its {@code nullValue} is the
 * empty string, and a quoted empty value reads as one too): there is nothing to rescue.
 */
final class CsvValueConversion implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Spark's CSV defaults for {@code nanValue}, {@code positiveInf} and {@code negativeInf}. */
  private static final String NAN = "NaN";

  private static final String POSITIVE_INF = "Inf";
  private static final String NEGATIVE_INF = "-Inf";

  private final String sessionTimeZone;
  private transient ZoneId zone;

  /**
   * @param sessionTimeZone the zone a timestamp without offset is read in (Spark's session zone)
   */
  CsvValueConversion(String sessionTimeZone) {
    this.sessionTimeZone = sessionTimeZone;
  }

  /** The value, null for an empty one, or MISMATCH. */
  Object convert(String text, DataType type) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      return convertNonEmpty(text, type);
    } catch (RuntimeException e) {
      // NumberFormatException, ArithmeticException, a date outside the calendar: one value that
      // does not fit is rescued, never a failed run.
      return MISMATCH;
    }
  }

  private Object convertNonEmpty(String text, DataType type) {
    if (type instanceof StringType) {
      return UTF8String.fromString(text);
    }
    if (type instanceof LongType
        || type instanceof IntegerType
        || type instanceof ShortType
        || type instanceof ByteType) {
      // Long.parseLong takes what Scala's toInt/toLong take (a sign, digits; no spaces).
      return ScalarConversion.integral(Long.parseLong(text), type);
    }
    if (type instanceof DoubleType || type instanceof FloatType) {
      return floating(text, type instanceof FloatType);
    }
    if (type instanceof DecimalType decimal) {
      // Spark's reader drops thousands separators ("1,5" becomes 15): rescued here, as in JSON.
      if (text.length() > JsonLine.MAX_NUMBER_LENGTH || text.indexOf(',') >= 0) {
        return MISMATCH;
      }
      return ScalarConversion.decimal(new BigDecimal(text), decimal);
    }
    if (type instanceof BooleanType) {
      if (text.equalsIgnoreCase("true")) {
        return true;
      }
      return text.equalsIgnoreCase("false") ? (Object) false : MISMATCH;
    }
    if (type instanceof DateType) {
      Option<Object> days = DateTimeUtils.stringToDate(UTF8String.fromString(text));
      if (days.isEmpty()) {
        days =
            DateTimeUtils.stringToDate(
                DateTimeUtils.cleanLegacyTimestampStr(UTF8String.fromString(text)));
      }
      return days.isDefined() ? days.get() : MISMATCH;
    }
    if (type instanceof TimestampType) {
      return ScalarConversion.timestamp(text, zone());
    }
    if (type instanceof TimestampNTZType) {
      return ScalarConversion.timestampNtz(text);
    }
    if (type instanceof BinaryType) {
      return text.getBytes(StandardCharsets.UTF_8); // the text's bytes, as Spark's reader
    }
    return MISMATCH;
  }

  /**
   * Spark's special values, then Java's parser (which Scala's toDouble is). An overflow to infinity
   * or a non-zero number that underflows to zero is rescued, as in JSON; an infinity written as
   * such ({@code Infinity}, {@code -Infinity}) is kept.
   */
  private static Object floating(String text, boolean isFloat) {
    double special =
        switch (text) {
          case NAN -> Double.NaN;
          case POSITIVE_INF -> Double.POSITIVE_INFINITY;
          case NEGATIVE_INF -> Double.NEGATIVE_INFINITY;
          default -> 0.0;
        };
    if (special != 0.0) {
      return isFloat ? (Object) (float) special : (Object) special;
    }
    double value = isFloat ? Float.parseFloat(text) : Double.parseDouble(text);
    boolean written = Double.isNaN(value) || Double.isInfinite(value) && text.contains("Infinity");
    if (!written && !ScalarConversion.fitsInFloating(value, text)) {
      return MISMATCH;
    }
    return isFloat ? (Object) (float) value : (Object) value;
  }

  /** Resolved at the first timestamp: an unknown zone then rescues values, as in JSON. */
  private ZoneId zone() {
    if (zone == null) {
      zone = ZoneId.of(sessionTimeZone);
    }
    return zone;
  }
}
