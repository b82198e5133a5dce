package io.replaysafe.bronze;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.trim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.replaysafe.common.Columns;
import io.replaysafe.common.config.EvidenceConfig;
import io.replaysafe.common.config.SourceConfig;
import io.replaysafe.common.io.Json;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * A dry parse of sample files under the pipeline's schema, with the parser the bronze job uses: how
 * many rows, which fields would be rescued (and how often), how many lines are corrupt, with a few
 * examples of each, and how many are Kafka tombstones. Reads the files; writes nothing.
 *
 * @param rescuedByField rows per rescued field path (dotted inside declared structs), by name
 * @param corruptRows lines bronze keeps as {@code _corrupt_record}, Kafka tombstones not included
 * @param kafkaTombstones lines that are the JSON literal {@code null}: a Kafka Connect S3 sink
 *     writes one for a record without a value ({@code behavior.on.null.values=write}; Debezium
 *     sends one after each delete). Bronze keeps them as {@code _corrupt_record}, as it keeps
 *     corrupt lines, but silver counts them as tombstone records and ignores them, so they are not
 *     counted as corrupt here
 */
public record SampleParse(
    long files,
    long rows,
    long rescuedRows,
    Map<String, FieldRescue> rescuedByField,
    long corruptRows,
    List<Example> corruptExamples,
    long kafkaTombstones) {
  public static final int EXAMPLES = 3;
  private static final ObjectMapper JSON = Json.mapper();

  /** How often one field was rescued, with the first examples (file order). */
  public record FieldRescue(long rows, List<Example> examples) {}

  /** One example line: the file it came from and the rescued JSON or the raw corrupt text. */
  public record Example(String file, String text) {}

  public SampleParse {
    rescuedByField = java.util.Collections.unmodifiableMap(new TreeMap<>(rescuedByField));
    corruptExamples = List.copyOf(corruptExamples);
  }

  /** A parse without Kafka tombstones (the constructor before they were counted on their own). */
  public SampleParse(
      long files,
      long rows,
      long rescuedRows,
      Map<String, FieldRescue> rescuedByField,
      long corruptRows,
      List<Example> corruptExamples) {
    this(files, rows, rescuedRows, rescuedByField, corruptRows, corruptExamples, 0);
  }

  /**
   * True on a Kafka tombstone: {@code _corrupt_record} is the JSON literal {@code null}, spaces
   * around it ignored. The same test silver's batch makes ({@code BatchPreparation}'s {@code
   * __kafka_tombstone}), so a plan counts as tombstones exactly the lines a run does.
   */
  public static Column isKafkaTombstone() {
    return trim(col(Columns.CORRUPT_RECORD)).equalTo("null");
  }

  /**
   * Rescued fields the schema does not declare, not even with other letter case: the fields that
   * stop a run under {@code schemaEvolutionMode: failOnNewColumns}.
   */
  public List<String> newFields(StructType schema) {
    List<String> fresh = new ArrayList<>();
    for (String field : rescuedByField.keySet()) {
      if (!declared(schema, field.split("\\."), 0)) {
        fresh.add(field);
      }
    }
    return fresh;
  }

  private static boolean declared(StructType type, String[] path, int at) {
    for (org.apache.spark.sql.types.StructField f : type.fields()) {
      if (f.name().equalsIgnoreCase(path[at])) {
        return at == path.length - 1
            || f.dataType() instanceof StructType nested && declared(nested, path, at + 1);
      }
    }
    return false;
  }

  /**
   * True when bronze would keep every line of the sample typed, with nothing rescued or corrupt
   * (Kafka tombstones are neither: silver ignores them).
   */
  public boolean clean() {
    return rescuedRows == 0 && corruptRows == 0;
  }

  /**
   * The sample's bronze rows (the schema's columns, the rescued column, {@code _corrupt_record},
   * provenance) exactly as the bronze job would produce them; lazily evaluated.
   */
  public static Dataset<Row> bronzeRows(
      SparkSession spark, SourceConfig source, List<String> files) {
    if (files.isEmpty()) {
      throw new IllegalArgumentException("no files to parse");
    }
    return BronzeRows.rows(spark, source, files);
  }

  /** Counts and examples over bronze rows produced by {@link #bronzeRows}. */
  public static SampleParse summarize(Dataset<Row> bronzeRows, SourceConfig source, long files) {
    return summarize(bronzeRows, source, files, EvidenceConfig.DEFAULT);
  }

  /** The same, each example's values shown as {@code evidence} says (a hash by default). */
  public static SampleParse summarize(
      Dataset<Row> bronzeRows, SourceConfig source, long files, EvidenceConfig evidence) {
    String rescuedColumn = source.rescuedDataColumn();
    Dataset<Row> notable =
        bronzeRows
            .where(col(rescuedColumn).isNotNull().or(col(Columns.CORRUPT_RECORD).isNotNull()))
            .select(
                col(Columns.SOURCE_FILE),
                col(rescuedColumn),
                col(Columns.CORRUPT_RECORD),
                coalesce(isKafkaTombstone(), lit(false)))
            .orderBy(col(Columns.SOURCE_FILE), col(rescuedColumn), col(Columns.CORRUPT_RECORD));
    long rows = bronzeRows.count();
    long rescuedRows = 0;
    long corruptRows = 0;
    long kafkaTombstones = 0;
    Map<String, long[]> counts = new TreeMap<>();
    Map<String, List<Example>> examples = new TreeMap<>();
    List<Example> corrupt = new ArrayList<>();
    Iterator<Row> it = notable.toLocalIterator();
    while (it.hasNext()) {
      Row row = it.next();
      String file = row.getString(0);
      if (row.getBoolean(3)) {
        kafkaTombstones++;
        continue;
      }
      if (!row.isNullAt(2)) {
        corruptRows++;
        if (corrupt.size() < EXAMPLES) {
          corrupt.add(new Example(file, evidence.show(row.getString(2))));
        }
        continue;
      }
      rescuedRows++;
      ObjectNode rescued = parseObject(row.getString(1));
      rescued.remove(Columns.RESCUED_FILE_PATH);
      List<String> fields = new ArrayList<>();
      fieldPaths(rescued, source.schema(), "", fields);
      for (String field : fields) {
        counts.computeIfAbsent(field, f -> new long[1])[0]++;
        List<Example> some = examples.computeIfAbsent(field, f -> new ArrayList<>());
        if (some.size() < EXAMPLES) {
          some.add(new Example(file, evidence.show(rescued.toString())));
        }
      }
    }
    Map<String, FieldRescue> byField = new TreeMap<>();
    counts.forEach((f, n) -> byField.put(f, new FieldRescue(n[0], List.copyOf(examples.get(f)))));
    return new SampleParse(
        files, rows, rescuedRows, byField, corruptRows, corrupt, kafkaTombstones);
  }

  /**
   * The rescued fields of one row: a key the schema declares as a struct is descended into (its
   * undeclared or mistyped members were rescued); any other key is a rescued field itself.
   */
  private static void fieldPaths(
      ObjectNode rescued, StructType type, String prefix, List<String> out) {
    Iterator<Map.Entry<String, JsonNode>> fields = rescued.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      DataType declared =
          type == null || !List.of(type.fieldNames()).contains(field.getKey())
              ? null
              : type.apply(field.getKey()).dataType();
      if (declared instanceof StructType struct && field.getValue() instanceof ObjectNode nested) {
        fieldPaths(nested, struct, prefix + field.getKey() + ".", out);
      } else {
        out.add(prefix + field.getKey());
      }
    }
  }

  private static ObjectNode parseObject(String json) {
    try {
      return (ObjectNode) JSON.readTree(json);
    } catch (Exception e) {
      throw BronzeErrors.unreadableRescuedData(EvidenceConfig.DEFAULT.show(json), e);
    }
  }
}
