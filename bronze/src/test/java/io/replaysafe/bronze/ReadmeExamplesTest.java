package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaysafe.common.config.SchemaEvolutionMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** Every row of the bronze README's examples table, run through the parser. */
class ReadmeExamplesTest {
  private static final String FILE = "file:/landing/a.json";

  static List<String[]> examples() throws IOException {
    String readme = Files.readString(Path.of("README.md"));
    String table =
        readme.substring(
            readme.indexOf("<!-- bronze-examples -->"),
            readme.indexOf("<!-- /bronze-examples -->"));
    List<String[]> rows = new ArrayList<>();
    for (String line : table.split("\n")) {
      if (!line.startsWith("| `")) {
        continue;
      }
      String[] cells = line.substring(1, line.length() - 1).split("\\|");
      String[] values = new String[4];
      for (int i = 0; i < 4; i++) {
        String cell = cells[i].strip();
        values[i] = cell.substring(1, cell.length() - 1); // strip the backticks
      }
      rows.add(values);
    }
    return rows;
  }

  @Test
  void everyExampleInTheReadmeHolds() throws IOException {
    List<String[]> examples = examples();
    assertThat(examples).hasSizeGreaterThanOrEqualTo(15);
    for (String[] e : examples) {
      StructType schema = StructType.fromDDL(e[0]);
      RescuingJsonParser.Parsed parsed =
          new RescuingJsonParser(schema, SchemaEvolutionMode.RESCUE).parse(e[1], FILE);
      String rescued =
          e[3].equals("null")
              ? null
              : e[3].substring(0, e[3].length() - 1) + ",\"_file_path\":\"" + FILE + "\"}";
      assertThat(InternalValues.render(parsed.values(), schema) + " " + parsed.rescued())
          .as(e[1])
          .isEqualTo(e[2] + " " + rescued);
    }
  }
}
