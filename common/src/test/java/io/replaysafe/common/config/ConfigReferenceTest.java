package io.replaysafe.common.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The pipeline file's reference is declared once, on the keys: every key has its help, the READMEs
 * show no key that does not exist, and every key is named in them.
 */
class ConfigReferenceTest {
  private static final Set<String> FREE_FORM = Set.of("source.options", "silver.keyNormalization");

  @Test
  void everyKeyHasItsHelpText() {
    assertThat(ConfigReference.keys())
        .filteredOn(k -> k.help() == null || k.help().isBlank())
        .extracting(ConfigReference.Key::path)
        .as("keys declared without @Help")
        .isEmpty();
  }

  @Test
  void theReferenceHasEverySectionAndItsKeysWithTypesAndDefaults() {
    List<String> paths = ConfigReference.keys().stream().map(ConfigReference.Key::path).toList();
    assertThat(paths)
        .startsWith("name", "storage", "storage.endpoint", "storage.region")
        .contains(
            "source.schema",
            "source.maxLineBytes",
            "bronze.checkpoint",
            "silver.keys",
            "silver.sequenceBy",
            "silver.storedAsScdType");
    assertThat(ConfigReference.key("silver.tombstoneRetention"))
        .hasValueSatisfying(
            k -> {
              assertThat(k.type()).isEqualTo("duration");
              assertThat(k.defaultValue()).isEqualTo("30 days");
            });
    assertThat(ConfigReference.key("silver").orElseThrow().section()).isTrue();
    assertThat(ConfigReference.key("maintenance").orElseThrow().section()).isTrue();
    assertThat(ConfigReference.key("maintenance.optimizeEvery"))
        .hasValueSatisfying(
            k -> {
              assertThat(k.type()).isEqualTo("duration");
              assertThat(k.defaultValue()).isEqualTo("none");
            });
    assertThat(ConfigReference.key("maintenance.vacuumRetention")).isPresent();
    assertThat(ConfigReference.key("silver.onConflict").orElseThrow().type())
        .isEqualTo("fail | quarantine");
    assertThat(ConfigReference.text())
        .contains(
            "\n  silver.tombstoneRetention (duration; default 30 days)\n"
                + "    How long a delete's tombstone keeps older inserts of its key out.\n")
        .contains("\nsilver (section)\n");
  }

  @Test
  void everyKeyOfTheReadmesPipelineFileExists() throws IOException {
    String readme = Files.readString(Path.of("..", "bronze", "README.md"));
    int section = readme.indexOf("## The pipeline file");
    int start = readme.indexOf("```yaml\n", section) + "```yaml\n".length();
    String yaml = readme.substring(start, readme.indexOf("```", start));
    JsonNode tree = new ObjectMapper(new YAMLFactory()).readTree(yaml);
    List<String> shown = new ArrayList<>();
    paths(tree, "", shown);

    assertThat(shown).hasSizeGreaterThan(30);
    assertThat(shown)
        .filteredOn(p -> ConfigReference.key(p).isEmpty())
        .as("keys the README shows that the pipeline file does not have")
        .isEmpty();
  }

  @Test
  void everyKeyIsNamedInTheModuleReadmes() throws IOException {
    String docs =
        Files.readString(Path.of("..", "bronze", "README.md"))
            + Files.readString(Path.of("..", "silver", "README.md"))
            + Files.readString(Path.of("..", "infra", "README.md"));
    assertThat(ConfigReference.keys())
        .extracting(ConfigReference.Key::path)
        .filteredOn(
            path -> {
              String leaf = path.substring(path.lastIndexOf('.') + 1);
              return !Pattern.compile("(`|\\b)" + Pattern.quote(leaf) + "(`|:|\\b)")
                  .matcher(docs)
                  .find();
            })
        .as("keys no README names")
        .isEmpty();
  }

  private static void paths(JsonNode node, String prefix, List<String> into) {
    node.fieldNames()
        .forEachRemaining(
            name -> {
              String path = prefix + name;
              into.add(path);
              JsonNode child = node.get(name);
              if (child.isObject() && !FREE_FORM.contains(path)) {
                paths(child, path + ".", into);
              }
            });
  }
}
