package io.replaysafe.bronze;

import static io.replaysafe.bronze.ValueConversion.MISMATCH;

import com.fasterxml.jackson.core.Base64Variants;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.ZoneId;
import java.util.Map;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
import org.apache.spark.sql.catalyst.util.RebaseDateTime;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
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
 * One JSON scalar (string, number, boolean) to the Spark value of a declared scalar type, or {@link
 * ValueConversion#MISMATCH} when it does not fit. The accepted inputs follow Spark's JSON reader
 * with its default options; where that reader would round, wrap, overflow or drop, this returns
 * MISMATCH instead, and the caller rescues the input text. A conversion may also throw a
 * RuntimeException for a value that does not fit (a date outside the calendar); the caller treats
 * that as a mismatch too.
 */
final class ScalarConversion {
  private static final Map<String, Double> NON_NUMERIC =
      Map.of(
          "NaN", Double.NaN,
          "Infinity", Double.POSITIVE_INFINITY,
          "+Infinity", Double.POSITIVE_INFINITY,
          "+INF", Double.POSITIVE_INFINITY,
          "-Infinity", Double.NEGATIVE_INFINITY,
          "-INF", Double.NEGATIVE_INFINITY);

  private final String sessionTimeZone;
  private ZoneId zone;

  /**
   * @param sessionTimeZone the zone a timestamp without offset is read in (Spark's session zone)
   */
  ScalarConversion(String sessionTimeZone) {
    this.sessionTimeZone = sessionTimeZone;
  }

  Object convert(JsonParser parser, JsonToken token, DataType type) throws IOException {
    if (type instanceof StringType) {
      return UTF8String.fromString(parser.getText()); // a number keeps its text; true, false
    }
    if (type instanceof LongType
        || type instanceof IntegerType
        || type instanceof ShortType
        || type instanceof ByteType) {
      if (token != JsonToken.VALUE_NUMBER_INT) {
        return MISMATCH;
      }
      // Jackson reports INT or LONG exactly when the number fits in a long.
      if (parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
        return MISMATCH;
      }
      return integral(parser.getLongValue(), type);
    }
    if (type instanceof DoubleType || type instanceof FloatType) {
      return floating(parser, token, type instanceof FloatType);
    }
    if (type instanceof DecimalType decimal) {
      if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
        if (parser.isNaN()) {
          return MISMATCH;
        }
        return decimal(parser.getDecimalValue(), decimal);
      }
      if (token == JsonToken.VALUE_STRING) {
        // Spark reads a decimal in a string too. Its reader drops thousands separators; here a
        // string with one is rescued, since "1,2" would silently become 12.
        String text = parser.getText();
        if (text.isEmpty()
            || text.length() > JsonLine.MAX_NUMBER_LENGTH
            || text.indexOf(',') >= 0) {
          return MISMATCH;
        }
        return decimal(new BigDecimal(text), decimal);
      }
      return MISMATCH;
    }
    if (type instanceof BooleanType) {
      if (token == JsonToken.VALUE_TRUE || token == JsonToken.VALUE_FALSE) {
        return token == JsonToken.VALUE_TRUE;
      }
      return MISMATCH;
    }
    if (type instanceof TimestampType && token == JsonToken.VALUE_NUMBER_INT) {
      // Epoch seconds, as Spark reads them; Spark's reader wraps around on overflow.
      if (parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
        return MISMATCH;
      }
      return Math.multiplyExact(parser.getLongValue(), 1_000_000L);
    }
    if (token != JsonToken.VALUE_STRING || parser.getTextLength() < 1) {
      return MISMATCH;
    }
    return temporalOrBinary(parser.getText(), type);
  }

  private static Object floating(JsonParser parser, JsonToken token, boolean isFloat)
      throws IOException {
    if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
      if (parser.isNaN()) { // NaN, Infinity, -Infinity written as bare tokens
        double special = parser.getDoubleValue();
        return isFloat ? (Object) (float) special : (Object) special;
      }
      if (isFloat) {
        float f = parser.getFloatValue();
        return fitsInFloating(f, parser.getText()) ? (Object) f : MISMATCH;
      }
      double d = parser.getDoubleValue();
      return fitsInFloating(d, parser.getText()) ? (Object) d : MISMATCH;
    }
    if (token == JsonToken.VALUE_STRING) {
      Double special = NON_NUMERIC.get(parser.getText());
      if (special == null) {
        return MISMATCH;
      }
      return isFloat ? (Object) special.floatValue() : (Object) special;
    }
    return MISMATCH;
  }

  /** Overflow to infinity and underflow of a non-zero number to zero lose the value: rescued. */
  static boolean fitsInFloating(double value, String text) {
    if (Double.isInfinite(value)) {
      return false;
    }
    if (value == 0.0) {
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c == 'e' || c == 'E') {
          break;
        }
        if (c >= '1' && c <= '9') {
          return false;
        }
      }
    }
    return true;
  }

  static Object integral(long v, DataType type) {
    long min;
    long max;
    if (type instanceof LongType) {
      return v;
    } else if (type instanceof IntegerType) {
      min = Integer.MIN_VALUE;
      max = Integer.MAX_VALUE;
    } else if (type instanceof ShortType) {
      min = Short.MIN_VALUE;
      max = Short.MAX_VALUE;
    } else {
      min = Byte.MIN_VALUE;
      max = Byte.MAX_VALUE;
    }
    if (v < min || v > max) {
      return MISMATCH;
    }
    if (type instanceof IntegerType) {
      return (int) v;
    }
    return type instanceof ShortType ? (Object) (short) v : (Object) (byte) v;
  }

  /**
   * A decimal that would lose digits (rounding) or does not fit the precision is a mismatch. The
   * digit counts are checked before {@code setScale}, so {@code 1e300000000} costs no more than
   * {@code 1e3}: the work per value is bounded by the type's precision.
   */
  static Object decimal(BigDecimal value, DecimalType type) {
    if (value.signum() == 0) {
      return Decimal.apply(BigDecimal.ZERO.setScale(type.scale()), type.precision(), type.scale());
    }
    BigDecimal v = value;
    if (v.scale() > type.scale()) {
      v = v.stripTrailingZeros(); // 1.50 fits DECIMAL(3,1): only zeros are dropped
      if (v.scale() > type.scale()) {
        return MISMATCH;
      }
    }
    long integerDigits = (long) v.precision() - v.scale();
    if (integerDigits > type.precision() - type.scale()) {
      return MISMATCH;
    }
    return Decimal.apply(v.setScale(type.scale()), type.precision(), type.scale());
  }

  private Object temporalOrBinary(String text, DataType type) {
    if (type instanceof DateType) {
      Option<Object> days =
          DateTimeUtils.stringToDate(
              DateTimeUtils.cleanLegacyTimestampStr(UTF8String.fromString(text)));
      if (days.isDefined()) {
        return days.get();
      }
      // Spark 1.5 stored dates as a day count in a string; Spark's reader still accepts that.
      return RebaseDateTime.rebaseJulianToGregorianDays(Integer.parseInt(text));
    }
    if (type instanceof TimestampType) {
      return timestamp(text, zone());
    }
    if (type instanceof TimestampNTZType) {
      return timestampNtz(text);
    }
    if (type instanceof BinaryType) {
      return Base64Variants.getDefaultVariant().decode(text); // what Jackson's getBinaryValue reads
    }
    return MISMATCH;
  }

  /**
   * A timestamp string as Spark's readers take it, in {@code zone} where the text names none; the
   * legacy form ({@code 2020-01-01 10:00:00.0}) too. Shared by JSON lines and CSV.
   */
  static Object timestamp(String text, ZoneId zone) {
    UTF8String s = UTF8String.fromString(text);
    Option<Object> micros = DateTimeUtils.stringToTimestamp(s, zone);
    if (micros.isEmpty()) {
      micros = DateTimeUtils.stringToTimestamp(DateTimeUtils.cleanLegacyTimestampStr(s), zone);
    }
    return micros.isDefined() ? micros.get() : MISMATCH;
  }

  /** A timestamp string without a zone, as Spark's readers take it. */
  static Object timestampNtz(String text) {
    Option<Object> micros =
        DateTimeUtils.stringToTimestampWithoutTimeZone(UTF8String.fromString(text), false);
    return micros.isDefined() ? micros.get() : MISMATCH;
  }

  /**
   * Resolved at the first timestamp string, not in the constructor: an unknown zone then makes each
   * such value a mismatch (rescued), not a parser that cannot be built.
   */
  private ZoneId zone() {
    if (zone == null) {
      zone = ZoneId.of(sessionTimeZone);
    }
    return zone;
  }
}
