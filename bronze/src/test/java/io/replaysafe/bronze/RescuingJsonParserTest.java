package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.SchemaEvolutionMode;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * The parser on its own, without Spark: integer ranges and field matching, the two places its fast
 * paths (numbers read as longs, fields found by position) must agree with the general ones.
 */
class RescuingJsonParserTest {
  private static final String FILE = "file:/landing/a.json";

  private static String parse(String ddl, String line) {
    StructType schema = StructType.fromDDL(ddl);
    RescuingJsonParser.Parsed parsed =
        new RescuingJsonParser(schema, SchemaEvolutionMode.RESCUE).parse(line, FILE);
    return InternalValues.render(parsed.values(), schema)
        + " "
        + parsed.rescued()
        + " "
        + parsed.corrupt();
  }

  private static String rescued(String json) {
    return "{" + json + ",\"_file_path\":\"" + FILE + "\"}";
  }

  @Test
  void readsIntegersUpToTheLimitsOfTheirTypeAndRescuesTheRest() {
    String ddl = "l BIGINT, i INT, s SMALLINT, t TINYINT";
    assertThat(parse(ddl, "{\"l\":9223372036854775807,\"i\":2147483647,\"s\":32767,\"t\":127}"))
        .isEqualTo("[9223372036854775807, 2147483647, 32767, 127] null null");
    assertThat(parse(ddl, "{\"l\":-9223372036854775808,\"i\":-2147483648,\"s\":-32768,\"t\":-128}"))
        .isEqualTo("[-9223372036854775808, -2147483648, -32768, -128] null null");
    assertThat(parse(ddl, "{\"l\":9223372036854775808,\"i\":2147483648,\"s\":32768,\"t\":128}"))
        .isEqualTo(
            "[null, null, null, null] "
                + rescued("\"l\":9223372036854775808,\"i\":2147483648,\"s\":32768,\"t\":128")
                + " null");
    assertThat(parse(ddl, "{\"l\":-9223372036854775809,\"i\":-2147483649,\"t\":-129}"))
        .isEqualTo(
            "[null, null, null, null] "
                + rescued("\"l\":-9223372036854775809,\"i\":-2147483649,\"t\":-129")
                + " null");
    assertThat(parse(ddl, "{\"l\":123456789012345678901234567890,\"i\":-0,\"s\":1.0}"))
        .isEqualTo(
            "[null, 0, null, null] "
                + rescued("\"l\":123456789012345678901234567890,\"s\":1.0")
                + " null");
  }

  @Test
  void rescuesAnArrayWithOneIntegerOutOfRangeWhole() {
    String ddl = "a ARRAY<INT>";
    assertThat(parse(ddl, "{\"a\":[1,-2147483648,2147483647]}"))
        .isEqualTo("[[1, -2147483648, 2147483647]] null null");
    assertThat(parse(ddl, "{\"a\":[1,2147483648]}"))
        .isEqualTo("[null] " + rescued("\"a\":[1,2147483648]") + " null");
  }

  @Test
  void findsFieldsInAnyOrderAndRescuesRepeatedUnknownAndCaseMismatchedOnes() {
    String ddl = "a BIGINT, b STRING, c BIGINT";
    assertThat(parse(ddl, "{\"a\":1,\"b\":\"x\",\"c\":3}")).isEqualTo("[1, x, 3] null null");
    assertThat(parse(ddl, "{\"c\":3,\"a\":1,\"b\":\"x\"}")).isEqualTo("[1, x, 3] null null");
    assertThat(parse(ddl, "{\"a\":1,\"c\":3}")).isEqualTo("[1, null, 3] null null");
    assertThat(parse(ddl, "{\"a\":1,\"a\":2,\"b\":\"x\",\"B\":\"y\",\"d\":4,\"c\":3}"))
        .isEqualTo("[2, x, 3] " + rescued("\"a\":1,\"B\":\"y\",\"d\":4") + " null");
  }

  @Test
  void matchesNestedStructFieldsTheSameWay() {
    String ddl = "s STRUCT<a: BIGINT, b: INT>";
    assertThat(parse(ddl, "{\"s\":{\"b\":2,\"a\":1}}")).isEqualTo("[[1,2]] null null");
    assertThat(parse(ddl, "{\"s\":{\"a\":1,\"b\":2147483648,\"c\":true}}"))
        .isEqualTo("[[1,null]] " + rescued("\"s\":{\"b\":2147483648,\"c\":true}") + " null");
  }

  private static RescuingJsonParser.Parsed parsed(String ddl, byte[] line) {
    return new RescuingJsonParser(StructType.fromDDL(ddl), SchemaEvolutionMode.RESCUE)
        .parse(line, 0, line.length, FILE);
  }

  @Test
  void readsArraysMapsAndStructsNestedInEachOther() {
    String ddl =
        "a ARRAY<BIGINT>, m MAP<STRING, BIGINT>,"
            + " s STRUCT<items: ARRAY<STRUCT<sku: STRING, qty: INT>>, attrs: MAP<STRING, ARRAY<INT>>>";
    assertThat(
            parse(
                ddl,
                "{\"a\":[4,5,null],\"m\":{\"a\":1,\"b\":null},"
                    + "\"s\":{\"items\":[{\"sku\":\"x\",\"qty\":2},null],\"attrs\":{\"k\":[1,2]}}}"))
        .isEqualTo("[[4, 5, null], {a -> 1, b -> null}, [[[x,2], null],{k -> [1, 2]}]] null null");
    assertThat(parse(ddl, "{\"a\":[],\"m\":{},\"s\":{\"items\":[],\"attrs\":{}}}"))
        .isEqualTo("[[], {}, [[],{}]] null null");
    // One element that does not fit rescues the whole array or map, with its input text.
    assertThat(
            parse(
                ddl,
                "{\"a\":[1,\"2\"],\"m\":{\"a\":1,\"a\":2},\"s\":{\"items\":[{\"sku\":\"x\",\"extra\":1.50}]}}"))
        .isEqualTo(
            "[null, null, [null,null]] "
                + rescued(
                    "\"a\":[1,\"2\"],\"m\":{\"a\":1,\"a\":2},\"s\":{\"items\":[{\"sku\":\"x\",\"extra\":1.50}]}")
                + " null");
  }

  @Test
  void readsEveryScalarTypeAsSparksJsonReaderDoes() {
    String ddl =
        "b BOOLEAN, t TINYINT, f FLOAT, d DOUBLE, dec DECIMAL(10,2), s STRING, dt DATE,"
            + " ts TIMESTAMP, ntz TIMESTAMP_NTZ, bin BINARY";
    assertThat(
            parse(
                ddl,
                "{\"b\":true,\"t\":-128,\"f\":1.5,\"d\":-2.5e-3,\"dec\":12345678.9,\"s\":12.50,"
                    + "\"dt\":\"2024-02-29\",\"ts\":\"2024-02-29T10:11:12.123456+01:00\","
                    + "\"ntz\":\"2024-02-29 10:11:12\",\"bin\":\"AAEC\"}"))
        .isEqualTo(
            "[true, -128, 1.5, -0.0025, 12345678.90, 12.50, 2024-02-29,"
                + " 2024-02-29T09:11:12.123456Z, 2024-02-29T10:11:12, [0, 1, 2]] null null");
    assertThat(
            parse(
                ddl,
                "{\"f\":\"NaN\",\"d\":-Infinity,\"dec\":\"0.10\",\"s\":{\"x\":[1,true]},"
                    + "\"dt\":\"2024-2\",\"ts\":1700000000}"))
        .isEqualTo(
            "[null, null, NaN, -Infinity, 0.10, {\"x\":[1,true]}, 2024-02-01,"
                + " 2023-11-14T22:13:20Z, null, null] null null");
  }

  @Test
  void rescuesEveryValueThatWouldFailRoundOrOverflowWithItsInputText() {
    String ddl =
        "dec DECIMAL(10,2), d DOUBLE, f FLOAT, t TINYINT, dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ,"
            + " bin BINARY, b BOOLEAN";
    assertThat(
            parse(
                ddl,
                "{\"dec\":NaN,\"d\":1e400,\"f\":3.5e38,\"t\":200,\"dt\":\"2024-13-01\","
                    + "\"ts\":1700000000000000,\"ntz\":\"2024-01-01T00:00:00Z\",\"bin\":\"@@\","
                    + "\"b\":\"true\"}"))
        .isEqualTo(
            "[null, null, null, null, null, null, null, null, null] "
                + rescued(
                    "\"dec\":NaN,\"d\":1e400,\"f\":3.5e38,\"t\":200,\"dt\":\"2024-13-01\","
                        + "\"ts\":1700000000000000,\"ntz\":\"2024-01-01T00:00:00Z\",\"bin\":\"@@\","
                        + "\"b\":\"true\"")
                + " null");
    // Rounding, a huge exponent (bounded work: no 10^300000000 is ever computed), year 300000,
    // underflow to zero, and a number that passes through double would change.
    assertThat(parse(ddl, "{\"dec\":1.005,\"d\":1e-400,\"ts\":\"300000-01-01T00:00:00Z\"}"))
        .isEqualTo(
            "[null, null, null, null, null, null, null, null, null] "
                + rescued("\"dec\":1.005,\"d\":1e-400,\"ts\":\"300000-01-01T00:00:00Z\"")
                + " null");
    assertThat(parse(ddl, "{\"dec\":1e300000000,\"x\":12345678901234567.891,\"y\":-0.0e-7}"))
        .isEqualTo(
            "[null, null, null, null, null, null, null, null, null] "
                + rescued("\"dec\":1e300000000,\"x\":12345678901234567.891,\"y\":-0.0e-7")
                + " null");
    assertThat(parse("dec DECIMAL(10,2)", "{\"dec\":1.50000000000000000000e3}"))
        .isEqualTo("[1500.00] null null");
    assertThat(parse("dec DECIMAL(10,2)", "{\"dec\":0e300000000}")).isEqualTo("[0.00] null null");
  }

  @Test
  void keepsLinesThatAreNotValidUtf8AsCorruptWithTheirBytes() {
    byte[] latin1 = "{\"caf\u00e9\":1}".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    RescuingJsonParser.Parsed parsed = parsed("x BIGINT", latin1);
    assertThat(parsed.values()).containsExactly((Object) null);
    assertThat(parsed.rescued()).isNull();
    assertThat(parsed.corrupt()).isEqualTo("{\"caf\uFFFD\":1}");
    assertThat(java.util.Base64.getDecoder().decode(parsed.corruptBase64())).isEqualTo(latin1);
    // Overlong encodings and encoded surrogates are not UTF-8 either.
    assertThat(parsed("x BIGINT", new byte[] {'{', '}', (byte) 0xC0, (byte) 0x80}).corruptBase64())
        .isEqualTo("e33AgA==");
    assertThat(
            parsed("x BIGINT", new byte[] {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'})
                .corruptBase64())
        .isEqualTo("Iu2ggCI=");
    assertThat(
            Utf8.isValid(
                "a\u00e9\u20ac\uD83D\uDE00".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                0,
                10))
        .isTrue();
  }

  @Test
  void blankIsOnlyJsonWhiteSpace() {
    assertThat(
            new RescuingJsonParser(StructType.fromDDL("x INT"), SchemaEvolutionMode.RESCUE)
                .parse(" \t\r", FILE))
        .isNull();
    for (String notBlank : new String[] {"\u000B", "\f", "\u2028", "\u00A0", "\u0000"}) {
      assertThat(parse("x INT", notBlank)).isEqualTo("[null] null " + notBlank);
    }
  }

  @Test
  void keepsAFieldNamedLikeTheProvenanceEntryUnderAnEscapedName() {
    assertThat(parse("x INT", "{\"x\":1,\"_file_path\":\"mine\",\"_rescued_data\":2}"))
        .isEqualTo(
            "[1] {\"_file_path#2\":\"mine\",\"_rescued_data\":2,\"_file_path\":\""
                + FILE
                + "\"} null");
  }

  @Test
  void typesTheLastOfRepeatedKeysAndRescuesTheEarlierOnes() {
    String ddl = "a INT, s STRUCT<x: INT>";
    assertThat(parse(ddl, "{\"a\":1,\"a\":\"two\",\"a\":3}"))
        .isEqualTo("[3, null] " + rescued("\"a\":1,\"a#2\":\"two\"") + " null");
    assertThat(parse(ddl, "{\"s\":{\"x\":1,\"y\":2},\"s\":{\"x\":3,\"z\":[4]}}"))
        .isEqualTo(
            "[null, [3]] " + rescued("\"s\":{\"x\":1,\"y\":2},\"s#2\":{\"z\":[4]}") + " null");
  }

  @Test
  void readsVariantValues() {
    RescuingJsonParser.Parsed parsed =
        new RescuingJsonParser(StructType.fromDDL("v VARIANT"), SchemaEvolutionMode.RESCUE)
            .parse("{\"v\":{\"a\":[1,2.5,\"x\"]}}", FILE);
    assertThat(parsed.values()[0].toString()).isEqualTo("{\"a\":[1,2.5,\"x\"]}");
    assertThat(parsed.rescued()).isNull();
  }
}
