package io.replaysafe.bronze;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.when;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delta.tables.DeltaTable;
import io.replaysafe.common.Columns;
import io.replaysafe.common.CommitTags;
import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.config.SchemaEvolutionMode;
import io.replaysafe.common.config.SourceConfig;
import io.replaysafe.common.io.Json;
import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.common.spark.SparkSessions;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Backfills typed columns of existing bronze rows from their rescued data, on request ({@code
 * replaysafe bronze --promote-rescued}): after a column was added to (or widened in) the source
 * schema, rows ingested before hold its values in the rescued-data column. Where a rescued value at
 * the top level has the column's exact name, the typed column is null, and the value converts under
 * bronze's own rules (the same parser), the value moves: the typed column is set and the field
 * leaves the rescued JSON (which becomes null when only {@code _file_path} is left). Values that do
 * not convert stay rescued.
 *
 * <p>One Delta UPDATE, so one new table version (time travel shows the rows before), with what it
 * did in the commit's user metadata. Idempotent: a second run finds nothing to move and writes no
 * version. Bronze's change feed shows the moved rows as updates, which silver does not read as
 * events: silver's stored rows keep what they had.
 */
public final class RescuePromotion {
  private static final Logger LOG = LoggerFactory.getLogger(RescuePromotion.class);
  private static final String PROMOTED = ReservedNames.PROMOTED;

  private final PipelineConfig config;
  private final SparkSession spark;

  private RescuePromotion(PipelineConfig config, SparkSession spark) {
    this.config = config;
    this.spark = spark;
  }

  public static RescuePromotion from(PipelineConfig config, SparkSession spark) {
    return new RescuePromotion(config, spark);
  }

  /**
   * What one promotion did.
   *
   * @param promoted rows filled, per column (only columns with at least one)
   * @param rowsChanged bronze rows rewritten
   * @param versionBefore the bronze version read (time travel to it shows the rows before)
   * @param versionAfter the version written; equal to versionBefore when nothing moved
   */
  public record Result(
      String pipeline,
      Map<String, Long> promoted,
      long rowsChanged,
      long versionBefore,
      long versionAfter) {
    public String summary() {
      if (rowsChanged == 0) {
        return "bronze "
            + pipeline
            + ": nothing to promote from the rescued data; bronze table version "
            + versionAfter
            + " unchanged";
      }
      return String.format(
          Locale.ROOT,
          "bronze %s: promoted rescued values into %s in %d row(s); bronze table version %d"
              + " (the rows before are version %d)",
          pipeline,
          promoted,
          rowsChanged,
          versionAfter,
          versionBefore);
    }

    public Map<String, Object> toMap() {
      Map<String, Object> map = new LinkedHashMap<>();
      map.put("layer", "bronze");
      map.put("pipeline", pipeline);
      map.put(CommitTags.ACTION, CommitTags.PROMOTE_RESCUED);
      map.put("promoted", promoted);
      map.put("rowsChanged", rowsChanged);
      map.put("versionBefore", versionBefore);
      map.put("versionAfter", versionAfter);
      return map;
    }

    public String toJson() {
      try {
        return Json.mapper().writeValueAsString(toMap());
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  public Result execute() {
    SparkSessions.applyStorage(spark, config.storage());
    SourceConfig source = config.source();
    String path = config.bronze().path();
    if (!DeltaTables.exists(spark, path)) {
      throw BronzeErrors.noBronzeTableToPromote(config.name(), path);
    }
    DeltaTable table = DeltaTable.forPath(spark, path);
    StructType tableSchema = table.toDF().schema();
    StructType schema = source.schema();
    for (StructField f : schema.fields()) {
      if (tableSchema.getFieldIndex(f.name()).isEmpty()
          || !tableSchema.apply(f.name()).dataType().equals(f.dataType())) {
        throw BronzeErrors.promotedColumnNotInBronze(f.name(), path, f.dataType().sql());
      }
    }
    long before = DeltaTables.latestVersion(table);
    String rescued = source.rescuedDataColumn();
    List<String> columns = List.of(schema.fieldNames());
    StructType promotedType =
        new StructType()
            .add("changed", DataTypes.BooleanType, false)
            .add("rescued", DataTypes.StringType, true);
    for (StructField f : schema.fields()) {
      promotedType = promotedType.add(f.name(), f.dataType(), true);
    }
    UserDefinedFunction udf =
        functions
            .udf(new Promote(schema, promotedType.size()), promotedType)
            .withName("replaysafe_promote_rescued");
    List<Column> typedIsNull = new ArrayList<>();
    columns.forEach(c -> typedIsNull.add(col(q(c)).isNull()));
    Column promoted = udf.apply(col(q(rescued)), array(typedIsNull.toArray(Column[]::new)));
    Column condition = col(q(rescued)).isNotNull().and(promoted.getField("changed"));

    Dataset<Row> changes =
        spark
            .read()
            .format("delta")
            .option("versionAsOf", before)
            .load(path)
            .select(promoted.as(PROMOTED))
            .where(col(PROMOTED + ".changed"));
    List<Column> counts = new ArrayList<>();
    counts.add(functions.count(functions.lit(1)));
    columns.forEach(c -> counts.add(functions.count(col(PROMOTED).getField(c)).as(c)));
    Row totals =
        changes.agg(counts.get(0), counts.subList(1, counts.size()).toArray(Column[]::new)).first();
    long rows = totals.getLong(0);
    Map<String, Long> perColumn = new LinkedHashMap<>();
    for (int i = 0; i < columns.size(); i++) {
      if (totals.getLong(i + 1) > 0) {
        perColumn.put(columns.get(i), totals.getLong(i + 1));
      }
    }
    if (rows == 0) {
      Result nothing = new Result(config.name(), perColumn, 0, before, before);
      LOG.info("{}", nothing.summary());
      return nothing;
    }
    Map<String, Column> set = new LinkedHashMap<>();
    for (String c : columns) {
      if (perColumn.containsKey(c)) {
        set.put(q(c), when(col(q(c)).isNull(), promoted.getField(c)).otherwise(col(q(c))));
      }
    }
    set.put(q(rescued), promoted.getField("rescued"));
    Result result = new Result(config.name(), perColumn, rows, before, before + 1);
    // What was done travels with the commit: DESCRIBE HISTORY shows it next to the version.
    CommitTags.withUserMetadata(
        spark,
        result.toJson(),
        () -> {
          table.update(condition, set);
          return null;
        });
    long after = DeltaTables.latestVersion(table);
    Result written = new Result(config.name(), perColumn, rows, before, after);
    LOG.info("{}", written.summary());
    return written;
  }

  private static String q(String column) {
    return "`" + column.replace("`", "``") + "`";
  }

  /**
   * Per row: the rescued JSON and which typed columns are null, to (changed, rescued JSON after,
   * value per column). Conversion is bronze's: the rescued field is parsed as a one-field line with
   * the column's type, and it moves only when the parser rescues nothing.
   */
  static final class Promote
      implements UDF2<String, scala.collection.Seq<Object>, Row>, Serializable {
    private static final long serialVersionUID = 1L;
    private final StructType schema;
    private final int width;
    private transient ObjectMapper mapper;
    private transient Map<String, RescuingJsonParser> parsers;

    Promote(StructType schema, int width) {
      this.schema = schema;
      this.width = width;
    }

    @Override
    public Row call(String rescued, scala.collection.Seq<Object> typedIsNull) throws Exception {
      Object[] out = new Object[width];
      out[0] = false;
      out[1] = rescued;
      if (rescued == null) {
        return RowFactory.create(out);
      }
      if (mapper == null) {
        mapper = Json.mapper();
        parsers = new LinkedHashMap<>();
      }
      JsonNode tree = mapper.readTree(rescued);
      if (!(tree instanceof ObjectNode object)) {
        return RowFactory.create(out);
      }
      boolean changed = false;
      StructField[] fields = schema.fields();
      for (int i = 0; i < fields.length; i++) {
        String name = fields[i].name();
        JsonNode value = object.get(name);
        if (value == null || value.isNull() || !Boolean.TRUE.equals(typedIsNull.apply(i))) {
          continue;
        }
        RescuingJsonParser parser =
            parsers.computeIfAbsent(
                name,
                n ->
                    new RescuingJsonParser(
                        new StructType().add(n, schema.apply(n).dataType(), true),
                        SchemaEvolutionMode.RESCUE));
        ObjectNode line = mapper.createObjectNode();
        line.set(name, value);
        RescuingJsonParser.Parsed parsed = parser.parse(mapper.writeValueAsString(line), "");
        if (parsed == null || parsed.rescued() != null || parsed.values()[0] == null) {
          continue;
        }
        // The parser gives Spark's internal values; a UDF returns external ones.
        out[2 + i] =
            org.apache.spark.sql.catalyst.CatalystTypeConverters.convertToScala(
                parsed.values()[0], fields[i].dataType());
        object.remove(name);
        changed = true;
      }
      if (!changed) {
        return RowFactory.create(out);
      }
      out[0] = true;
      boolean onlyFilePath =
          object.size() == 0 || object.size() == 1 && object.has(Columns.RESCUED_FILE_PATH);
      out[1] = onlyFilePath ? null : mapper.writeValueAsString(object);
      return RowFactory.create(out);
    }
  }
}
