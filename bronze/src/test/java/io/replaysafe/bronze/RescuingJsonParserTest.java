package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.SchemaEvolutionMode;
import java.util.Arrays;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * The parser on its own, without Spark: integer ranges and field matching, the two places its fast
 * paths (numbers read as longs, fields found by position) must agree with the general ones.
 */
class RescuingJsonParserTest {
  private static final String FILE = "file:/landing/a.json";

  private static String parse(String ddl, String line) {
    RescuingJsonParser.Parsed parsed =
        new RescuingJsonParser(StructType.fromDDL(ddl), SchemaEvolutionMode.RESCUE)
            .parse(line, FILE);
    return Arrays.toString(parsed.values()) + " " + parsed.rescued() + " " + parsed.corrupt();
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
        .isEqualTo("[1, x, 3] " + rescued("\"a\":2,\"B\":\"y\",\"d\":4") + " null");
  }

  @Test
  void matchesNestedStructFieldsTheSameWay() {
    String ddl = "s STRUCT<a: BIGINT, b: INT>";
    assertThat(parse(ddl, "{\"s\":{\"b\":2,\"a\":1}}")).isEqualTo("[[1,2]] null null");
    assertThat(parse(ddl, "{\"s\":{\"a\":1,\"b\":2147483648,\"c\":true}}"))
        .isEqualTo("[[1,null]] " + rescued("\"s\":{\"b\":2147483648,\"c\":true}") + " null");
  }
}
