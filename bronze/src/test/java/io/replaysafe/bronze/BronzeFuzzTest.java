package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.config.ConfigLoader;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.testing.SparkTestBase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10 item 7: 12,000 lines made by mutating valid ones (truncation, byte flips, type swaps,
 * deep nesting, long strings, invalid UTF-8, NUL bytes) across six files, two of them gzip. Bronze
 * must finish with one row per non-blank line, and its corrupt and rescued counts must match a
 * small classifier written here, independently of the parser: strict UTF-8 decoding, one JSON
 * object per line (Jackson tree, same reader limits as Spark's), and type fit checked on the tree.
 * The seed's names differ in at least two characters, so one flip never makes a repeated key.
 */
class BronzeFuzzTest extends SparkTestBase {
  static final String SCHEMA =
      "id BIGINT, name STRING, tags ARRAY<STRING>, attrs MAP<STRING, STRING>,"
          + " nested STRUCT<alpha: BIGINT, omega: STRING>";
  static final Set<String> TOP = Set.of("id", "name", "tags", "attrs", "nested");
  static final Set<String> NESTED = Set.of("alpha", "omega");

  @TempDir Path dir;

  enum Kind {
    BLANK,
    CORRUPT,
    RESCUED,
    CLEAN
  }

  static final JsonFactory FACTORY =
      JsonFactory.builder()
          .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
          .enable(JsonReadFeature.ALLOW_SINGLE_QUOTES)
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxNestingDepth(1000)
                  .maxNumberLength(1000)
                  .maxStringLength(Integer.MAX_VALUE)
                  .build())
          .build();
  static final ObjectMapper MAPPER = new ObjectMapper(FACTORY);

  static Kind classify(byte[] line) {
    boolean blank = true;
    for (byte b : line) {
      blank &= b == ' ' || b == '\t' || b == '\r' || b == '\n';
    }
    if (blank) {
      return Kind.BLANK;
    }
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(line));
    } catch (CharacterCodingException e) {
      return Kind.CORRUPT;
    }
    JsonNode root;
    try (JsonParser parser = FACTORY.createParser(line)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return Kind.CORRUPT;
      }
      root = MAPPER.readTree(parser);
      if (parser.nextToken() != null) {
        return Kind.CORRUPT;
      }
    } catch (IOException | RuntimeException e) {
      return Kind.CORRUPT;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      JsonNode v = field.getValue();
      boolean fits =
          switch (field.getKey()) {
            case "id" -> isLong(v);
            case "name" -> true;
            case "tags" -> v.isNull() || v.isArray();
            case "attrs" -> v.isNull() || v.isObject();
            case "nested" -> v.isNull() || v.isObject() && nestedFits(v);
            default -> false;
          };
      if (!fits) {
        return Kind.RESCUED;
      }
    }
    return Kind.CLEAN;
  }

  private static boolean isLong(JsonNode v) {
    return v.isNull() || v.isIntegralNumber() && v.canConvertToLong();
  }

  private static boolean nestedFits(JsonNode nested) {
    for (Iterator<Map.Entry<String, JsonNode>> it = nested.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      if (!NESTED.contains(f.getKey())) {
        return false;
      }
      if (f.getKey().equals("alpha") && !isLong(f.getValue())) {
        return false;
      }
    }
    return true;
  }

  static byte[] seed(Random random, int n) {
    String line =
        "{\"id\":"
            + n
            + ",\"name\":\"n\u00e9"
            + n
            + "\",\"tags\":[\"a\",\"b\"],\"attrs\":{\"color\":\"red\",\"size\":\""
            + random.nextInt(50)
            + "\"},\"nested\":{\"alpha\":"
            + random.nextInt()
            + ",\"omega\":\"z\"}}";
    return line.getBytes(StandardCharsets.UTF_8);
  }

  static final String[] SWAPS = {
    "\"x\"", "1.5", "true", "null", "[1,2]", "{\"q\":1}", "NaN", "99999999999999999999", "-0", "''"
  };

  static byte[] mutate(byte[] line, Random random) {
    String text = new String(line, StandardCharsets.UTF_8);
    switch (random.nextInt(9)) {
      case 0: // truncation (may cut a multi-byte character)
        return java.util.Arrays.copyOf(line, random.nextInt(line.length));
      case 1: // byte flips, never creating a line break
        {
          byte[] out = line.clone();
          int flips = 1 + random.nextInt(2);
          for (int i = 0; i < flips; i++) {
            int at = random.nextInt(out.length);
            byte b;
            do {
              b = (byte) (out[at] ^ (1 << random.nextInt(8)));
            } while (b == '\n' || b == '\r');
            out[at] = b;
          }
          return out;
        }
      case 2: // type swap of one value
        {
          String[] keys = {"\"id\":", "\"tags\":", "\"attrs\":", "\"nested\":", "\"alpha\":"};
          String key = keys[random.nextInt(keys.length)];
          int at = text.indexOf(key) + key.length();
          int end = at;
          int depth = 0;
          for (; end < text.length(); end++) {
            char c = text.charAt(end);
            if (c == '{' || c == '[') {
              depth++;
            } else if (c == '}' || c == ']') {
              if (depth == 0) {
                break;
              }
              depth--;
            } else if (c == ',' && depth == 0) {
              break;
            }
          }
          return (text.substring(0, at) + SWAPS[random.nextInt(SWAPS.length)] + text.substring(end))
              .getBytes(StandardCharsets.UTF_8);
        }
      case 3: // deep nesting, under and over the reader's limit of 1000
        {
          int depth = random.nextBoolean() ? 200 : 1200;
          String deep = "[".repeat(depth) + "]".repeat(depth);
          String field = random.nextBoolean() ? "name" : "extra";
          return ("{\"" + field + "\":" + deep + ",\"id\":1}").getBytes(StandardCharsets.UTF_8);
        }
      case 4: // a long string
        return ("{\"id\":1,\"name\":\"" + "x".repeat(100_000 + random.nextInt(100_000)) + "\"}")
            .getBytes(StandardCharsets.UTF_8);
      case 5: // invalid UTF-8 (a Latin-1 byte) somewhere
        {
          byte[] out = line.clone();
          out[random.nextInt(out.length)] = (byte) 0xE9;
          return out;
        }
      case 6: // a NUL byte
        {
          byte[] out = line.clone();
          out[random.nextInt(out.length)] = 0;
          return out;
        }
      case 7: // an unknown or case-mismatched field
        return text.replaceFirst("\"name\"", random.nextBoolean() ? "\"Name\"" : "\"nick\"")
            .getBytes(StandardCharsets.UTF_8);
      default: // white space only, JSON's or not
        return random.nextBoolean()
            ? " \t ".getBytes(StandardCharsets.UTF_8)
            : "\u000B\f".getBytes(StandardCharsets.UTF_8);
    }
  }

  @Test
  void everyNonBlankMutatedLineIsOneRowAndTheCountsMatchAnIndependentClassifier()
      throws IOException {
    Random random = new Random(20261130L);
    int lines = 12_000;
    int files = 6;
    Map<Kind, Integer> expected = new java.util.EnumMap<>(Kind.class);
    for (Kind k : Kind.values()) {
      expected.put(k, 0);
    }
    Path landing = Files.createDirectories(dir.resolve("landing"));
    for (int f = 0; f < files; f++) {
      ByteArrayOutputStream content = new ByteArrayOutputStream();
      for (int n = f; n < lines; n += files) {
        byte[] line = seed(random, n);
        if (random.nextInt(3) > 0) {
          line = mutate(line, random);
        }
        expected.merge(classify(line), 1, Integer::sum);
        content.write(line);
        content.write('\n');
      }
      boolean gzip = f % 3 == 0;
      byte[] bytes = content.toByteArray();
      if (gzip) {
        ByteArrayOutputStream zipped = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(zipped)) {
          out.write(bytes);
        }
        bytes = zipped.toByteArray();
      }
      Files.write(landing.resolve("part-" + f + (gzip ? ".json.gz" : ".json")), bytes);
    }

    PipelineConfig config =
        ConfigLoader.parse(
            "fuzz",
            "name: fuzz\nsource:\n  path: "
                + landing
                + "\n  schema: \""
                + SCHEMA
                + "\"\nbronze:\n  path: "
                + dir.resolve("bronze")
                + "\n  checkpoint: "
                + dir.resolve("checkpoint")
                + "\n");
    BronzeResult result = BronzeIngest.from(config, spark).execute();

    int nonBlank = lines - expected.get(Kind.BLANK);
    assertThat(result.unreadableFiles()).isEmpty();
    assertThat(result.files()).isEqualTo(files);
    assertThat(result.rows()).isEqualTo((long) nonBlank);
    assertThat(result.corruptRows()).isEqualTo((long) expected.get(Kind.CORRUPT));
    assertThat(result.rescuedRows()).isEqualTo((long) expected.get(Kind.RESCUED));
    assertThat(spark.read().format("delta").load(dir.resolve("bronze").toString()).count())
        .isEqualTo((long) nonBlank);
    // The mutations reached every class, in numbers.
    assertThat(expected.values()).allMatch(count -> count > 300);
  }
}
