package io.replaysafe.silver.draft;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.lag;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.when;

import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.spark.SqlNames;
import io.replaysafe.silver.draft.EnvelopeShape.Position;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser$;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Drafts the silver contract for a sample of Debezium change events ({@link EnvelopeShape}): the
 * derived columns, the key, the log position as the sequence and {@code op} mapped to deletes and
 * truncates, each choice with the evidence the sample gives. A sample whose {@code op} holds a
 * value Debezium does not write (or none) is not an envelope.
 *
 * <p>Debezium's message key is not in the value the S3 sink writes, so the key is read from how the
 * events behave. A key field is set in every row event (from {@code after}, or {@code before} for a
 * delete), never changed by an update (Debezium emits a primary-key change as a delete and a
 * create), has one event per value at each log position (a snapshot reads every row at one
 * position) and, in log order, is never created while there nor changed once deleted (one row's
 * life). Under REPLICA IDENTITY DEFAULT a delete's {@code before} holds the primary key only: when
 * every delete shows the same fields and nothing else, those are the key, composite or not.
 * Otherwise the first field that fits, in the table's column order, where a primary key usually
 * stands.
 */
public final class EnvelopeFinder {
  private static final List<String> ROW_OPERATIONS = List.of("r", "c", "u", "d");

  /** Derived names taken by a row field are prefixed with this until they are free. */
  private static final String PREFIX = "cdc_";

  private EnvelopeFinder() {}

  /**
   * What one field of the row image showed in the sample's row events.
   *
   * @param unavailable events whose {@code after} holds {@link EnvelopeDraft#UNAVAILABLE_VALUE} in
   *     this field (string fields only)
   */
  private record FieldStats(
      String field,
      DataType type,
      long nulls,
      long changed,
      long inDeletes,
      long inAfter,
      long unavailable) {
    /** A key's type; timestamps identify moments, not rows. */
    boolean keyType() {
      return CandidateFinder.isKeyType(type) && !CandidateFinder.isTimeType(type);
    }
  }

  /**
   * The first pass over the sample.
   *
   * @param ops each Debezium op the sample holds and how often
   * @param otherOps events whose op is null or not one Debezium writes
   * @param updatesWithBefore updates that carry both images (REPLICA IDENTITY FULL, MySQL)
   * @param positionNulls events with a null field in the log position
   */
  private record Counts(
      Map<String, Long> ops,
      long otherOps,
      long updatesWithBefore,
      long positionNulls,
      List<FieldStats> fields) {
    long rowEvents() {
      return ROW_OPERATIONS.stream().mapToLong(o -> ops.getOrDefault(o, 0L)).sum();
    }

    long deletes() {
      return ops.getOrDefault("d", 0L);
    }

    FieldStats field(String name) {
      return fields.stream().filter(s -> s.field.equals(name)).findFirst().orElseThrow();
    }
  }

  /**
   * What a candidate key's values showed, in log order.
   *
   * @param sharedPositions events that share their value's log position with another event
   * @param outOfLife events that create a value already there, or change a deleted one
   * @param values distinct values
   */
  private record Lives(long sharedPositions, long outOfLife, long values) {
    boolean consistent() {
      return sharedPositions == 0 && outOfLife == 0;
    }
  }

  /**
   * The draft for the {@code valid} sample rows (parsed under {@code shape.schema()}, {@link
   * CandidateFinder#ARRIVAL} numbering them in arrival order), of which there are {@code rows};
   * empty when they are not Debezium change events.
   */
  public static Optional<EnvelopeDraft> find(Dataset<Row> valid, EnvelopeShape shape, long rows) {
    if (rows == 0) {
      return Optional.empty();
    }
    Counts counts = firstPass(valid, shape);
    if (counts.otherOps > 0 || counts.rowEvents() == 0) {
      return Optional.empty();
    }
    Names names = new Names(shape);
    Map<List<String>, Lives> keyFields = keys(valid, shape, counts);
    List<Candidate> keys = new ArrayList<>();
    List<String> deleteImage = keyOnlyDeleteImage(counts);
    keyFields.forEach(
        (fields, lives) ->
            keys.add(keyCandidate(fields, lives, names, counts, fields.equals(deleteImage))));
    List<String> chosen = keyFields.isEmpty() ? List.of() : keyFields.keySet().iterator().next();
    Candidate sequence = sequence(valid, shape, names, chosen, rows, counts.positionNulls);

    Map<String, String> columns = new LinkedHashMap<>();
    Map<String, Long> unavailable = new LinkedHashMap<>();
    List<String> columnList = new ArrayList<>();
    for (String k : chosen) {
      columns.put(names.of(k), "coalesce(" + field("after", k) + ", " + field("before", k) + ")");
      columnList.add(names.of(k));
    }
    for (Position p : shape.connector().positions()) {
      columns.put(names.of(p), field("source", p.sourceField()));
    }
    for (StructField f : shape.rowImage().fields()) {
      if (!chosen.contains(f.name())) {
        long marked = counts.field(f.name()).unavailable;
        String value = field("after", f.name());
        if (marked > 0) {
          // An unchanged TOASTed column PostgreSQL did not send: null, so that ignoreNullUpdates
          // keeps the stored value (silver/README.md, Debezium, end to end).
          value = "nullif(" + value + ", '" + EnvelopeDraft.UNAVAILABLE_VALUE + "')";
          unavailable.put(names.of(f.name()), marked);
        }
        columns.put(names.of(f.name()), value);
        columnList.add(names.of(f.name()));
      }
    }
    columns.put(names.op(), "op");
    return Optional.of(
        new EnvelopeDraft(
            shape, rows, counts.ops, columns, keys, sequence, names.op(), columnList, unavailable));
  }

  /** One aggregation over the sample: the ops, and what each field of the row image showed. */
  private static Counts firstPass(Dataset<Row> valid, EnvelopeShape shape) {
    Column op = col("op");
    Column before = col("before");
    Column after = col("after");
    Column rowEvent = op.isin(ROW_OPERATIONS.toArray());
    Column bothImages = op.equalTo("u").and(before.isNotNull()).and(after.isNotNull());
    Object[] debezium = EnvelopeDraft.OPERATIONS.keySet().toArray();
    List<Column> aggs = new ArrayList<>();
    for (Object o : debezium) {
      aggs.add(count(when(op.equalTo(o), lit(1))));
    }
    aggs.add(count(when(op.isNull().or(not(op.isin(debezium))), lit(1))));
    aggs.add(count(when(bothImages, lit(1))));
    aggs.add(count(when(anyNull(positions(shape)), lit(1))));
    for (StructField f : shape.rowImage().fields()) {
      Column b = before.getField(f.name());
      Column a = after.getField(f.name());
      aggs.add(count(when(rowEvent.and(coalesce(a, b).isNull()), lit(1))));
      // Only a key's type is compared (maps and arrays of structs do not compare).
      aggs.add(
          CandidateFinder.isKeyType(f.dataType())
              ? count(when(bothImages.and(not(b.eqNullSafe(a))), lit(1)))
              : lit(0L));
      aggs.add(count(when(op.equalTo("d").and(b.isNotNull()), lit(1))));
      aggs.add(count(when(a.isNotNull(), lit(1))));
      aggs.add(
          f.dataType() instanceof StringType
              ? count(when(a.equalTo(EnvelopeDraft.UNAVAILABLE_VALUE), lit(1)))
              : lit(0L));
    }
    Row r = valid.agg(aggs.get(0), aggs.subList(1, aggs.size()).toArray(Column[]::new)).first();
    Map<String, Long> ops = new LinkedHashMap<>();
    int i = 0;
    for (Object o : debezium) {
      long n = r.getLong(i++);
      if (n > 0) {
        ops.put((String) o, n);
      }
    }
    long otherOps = r.getLong(i++);
    long updatesWithBefore = r.getLong(i++);
    long positionNulls = r.getLong(i++);
    List<FieldStats> fields = new ArrayList<>();
    for (StructField f : shape.rowImage().fields()) {
      fields.add(
          new FieldStats(
              f.name(),
              f.dataType(),
              r.getLong(i),
              r.getLong(i + 1),
              r.getLong(i + 2),
              r.getLong(i + 3),
              r.getLong(i + 4)));
      i += 5;
    }
    return new Counts(ops, otherOps, updatesWithBefore, positionNulls, fields);
  }

  /**
   * The row fields that fit a key, strongest first: the fields of a key-only delete image, then
   * each single field in the table's column order.
   */
  private static Map<List<String>, Lives> keys(
      Dataset<Row> valid, EnvelopeShape shape, Counts counts) {
    List<List<String>> candidates = new ArrayList<>();
    List<String> deleteImage = keyOnlyDeleteImage(counts);
    if (!deleteImage.isEmpty()) {
      candidates.add(deleteImage);
    }
    for (FieldStats s : counts.fields) {
      if (!candidates.contains(List.of(s.field))) {
        candidates.add(List.of(s.field));
      }
    }
    // Set in every row event and never changed by an update; then the checks per value.
    candidates.removeIf(
        c ->
            c.stream()
                .map(counts::field)
                .anyMatch(s -> !s.keyType() || s.nulls > 0 || s.changed > 0));
    Map<List<String>, Lives> lives =
        lives(valid.where(col("op").isin(ROW_OPERATIONS.toArray())), shape, candidates);
    Map<List<String>, Lives> keys = new LinkedHashMap<>();
    for (List<String> c : candidates) {
      if (lives.get(c).consistent()) {
        keys.put(List.copyOf(c), lives.get(c));
      }
    }
    return keys;
  }

  private static Candidate keyCandidate(
      List<String> fields, Lives lives, Names names, Counts counts, boolean deleteImage) {
    String consistent =
        "set in all "
            + counts.rowEvents()
            + " row events ("
            + lives.values
            + " distinct values)"
            + (counts.updatesWithBefore > 0
                ? "; unchanged by the " + counts.updatesWithBefore + " update(s) that carry before"
                : "")
            + "; one event per value and log position; in log order, never created while there nor"
            + " changed once deleted";
    List<String> derived = fields.stream().map(names::of).toList();
    if (!deleteImage) {
      return new Candidate(derived, Candidate.Evidence.CONSISTENT_KEY, consistent);
    }
    return new Candidate(
        derived,
        Candidate.Evidence.DELETE_IMAGE_KEY,
        (fields.size() == 1 ? "the only field" : "the only fields")
            + " of before in every delete ("
            + counts.deletes()
            + " delete(s): Debezium keeps only the primary key there under REPLICA IDENTITY"
            + " DEFAULT); "
            + consistent);
  }

  /**
   * The fields set in the before image of every delete when the deletes show those and nothing
   * else, while creates and updates show more (REPLICA IDENTITY DEFAULT); empty otherwise.
   */
  private static List<String> keyOnlyDeleteImage(Counts counts) {
    long deletes = counts.deletes();
    if (deletes == 0) {
      return List.of();
    }
    List<String> image = new ArrayList<>();
    boolean leftOut = false;
    for (FieldStats s : counts.fields) {
      if (s.inDeletes == deletes) {
        image.add(s.field);
      } else if (s.inDeletes > 0) {
        return List.of(); // set in some deletes only: a full image with nulls in it
      } else {
        leftOut |= s.inAfter > 0;
      }
    }
    return leftOut ? image : List.of();
  }

  /**
   * What each candidate's values show over the row events ({@link Lives}). Events equal but for the
   * envelope's {@code ts_ms} (a redelivery) count once.
   */
  private static Map<List<String>, Lives> lives(
      Dataset<Row> rowEvents, EnvelopeShape shape, List<List<String>> candidates) {
    Map<List<String>, Lives> result = new HashMap<>();
    if (candidates.isEmpty()) {
      return result;
    }
    List<Column> values = new ArrayList<>();
    for (int c = 0; c < candidates.size(); c++) {
      List<Column> parts = new ArrayList<>();
      for (String f : candidates.get(c)) {
        parts.add(coalesce(col("after").getField(f), col("before").getField(f)).as(f));
      }
      values.add(struct(lit(c).as("c"), to_json(struct(parts.toArray(Column[]::new))).as("v")));
    }
    Column op = col("op");
    // One row per candidate, value and distinct event: a redelivery is the same event.
    Dataset<Row> events =
        rowEvents
            .select(
                explode(array(values.toArray(Column[]::new))).as("x"),
                position(shape).as("p"),
                to_json(struct(op, col("before"), col("after"))).as("e"),
                op.as("op"))
            .select(col("x.c").as("c"), col("x.v").as("v"), col("p"), col("e"), col("op"))
            .distinct();
    Column previous = lag(col("op"), 1).over(Window.partitionBy("c", "v").orderBy("p"));
    Column atPosition = count(lit(1)).over(Window.partitionBy("c", "v", "p"));
    // In log order: a create of a value already there (any event but a delete before it), or a
    // change of a value deleted.
    Column outOfLife =
        col("op")
            .equalTo("c")
            .and(col("previous").isNotNull())
            .and(col("previous").notEqual("d"))
            .or(col("previous").equalTo("d").and(col("op").isin("u", "d")));
    List<Row> perCandidate =
        events
            .select(col("c"), col("v"), col("op"), previous.as("previous"), atPosition.as("n"))
            .groupBy(col("c"))
            .agg(
                count(when(col("n").gt(1), lit(1))),
                count(when(outOfLife, lit(1))),
                countDistinct(col("v")))
            .collectAsList();
    for (Row row : perCandidate) {
      result.put(
          candidates.get(row.getInt(0)), new Lives(row.getLong(1), row.getLong(2), row.getLong(3)));
    }
    return result;
  }

  private static Candidate sequence(
      Dataset<Row> valid,
      EnvelopeShape shape,
      Names names,
      List<String> keyFields,
      long events,
      long positionNulls) {
    Column position = position(shape);
    String within = keyFields.stream().map(names::of).toList().toString();
    within = keyFields.size() == 1 ? within.substring(1, within.length() - 1) : within;
    long drops;
    String order;
    if (keyFields.isEmpty()) {
      drops = CandidateFinder.decreases(CandidateFinder.inArrivalOrder(valid), position, null);
      order =
          drops == 0
              ? "never decreases in arrival order"
              : "decreases " + drops + " time(s) in arrival order";
    } else {
      Column key =
          struct(
              keyFields.stream()
                  .map(f -> coalesce(col("after").getField(f), col("before").getField(f)))
                  .toArray(Column[]::new));
      drops =
          CandidateFinder.decreases(
              CandidateFinder.inArrivalOrder(valid.where(col("op").isin(ROW_OPERATIONS.toArray()))),
              position,
              key);
      order =
          drops == 0
              ? "never decreases within each " + within + " in arrival order"
              : "decreases " + drops + " time(s) within the same " + within + " in arrival order";
    }
    if (drops > 0) {
      order += " (files out of order or redelivered: silver keeps the highest)";
    }
    StructType source = (StructType) shape.schema().apply("source").dataType();
    List<String> read = new ArrayList<>();
    List<String> types = new ArrayList<>();
    for (Position p : shape.connector().positions()) {
      read.add(field("source", p.sourceField()));
      types.add(source.apply(p.sourceField()).dataType().sql());
    }
    return new Candidate(
        shape.connector().positions().stream().map(names::of).toList(),
        Candidate.Evidence.LOG_POSITION,
        String.join(", ", read)
            + " ("
            + String.join(", ", types)
            + "): the "
            + shape.connector().displayName()
            + " connector's "
            + shape.connector().position()
            + shape.connector().comparison()
            + "; "
            + (positionNulls == 0
                ? "set in all " + events + " events"
                : "null in "
                    + positionNulls
                    + " of "
                    + events
                    + " events (silver would find them invalid)")
            + "; "
            + order);
  }

  /** The log position's fields, read from {@code source}. */
  private static List<Column> positions(EnvelopeShape shape) {
    return shape.connector().positions().stream()
        .map(p -> col("source").getField(p.sourceField()))
        .toList();
  }

  /** The log position as one comparable value: the struct of its fields, in order. */
  private static Column position(EnvelopeShape shape) {
    return struct(
        shape.connector().positions().stream()
            .map(p -> col("source").getField(p.sourceField()).as(p.sourceField()))
            .toArray(Column[]::new));
  }

  private static Column anyNull(List<Column> columns) {
    Column any = lit(false);
    for (Column c : columns) {
      any = any.or(c.isNull());
    }
    return any;
  }

  /** {@code struct.name} as Spark SQL text, the name quoted only where it must be. */
  static String field(String struct, String name) {
    return struct + "." + identifier(name);
  }

  /** A column name as Spark SQL text: as it is when it parses as that one name, else quoted. */
  static String identifier(String name) {
    if (name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      try {
        Expression parsed = CatalystSqlParser$.MODULE$.parseExpression(name);
        if (parsed instanceof UnresolvedAttribute a
            && CollectionConverters.asJava(a.nameParts()).equals(List.of(name))) {
          return name;
        }
      } catch (Exception e) { // ParseException: a keyword, quoted below
        // fall through
      }
    }
    return SqlNames.quote(name);
  }

  /**
   * The derived columns' names: each row field's own, silver/README.md's (CDC feeds) for the log
   * position and {@code op}; a name a row field takes, or that replaysafe reserves, gets {@link
   * #PREFIX}. Compared case-insensitively, as Spark resolves columns.
   */
  private static final class Names {
    private final Map<String, String> byField = new HashMap<>();
    private final Map<String, String> byPosition = new HashMap<>();
    private final String op;

    Names(EnvelopeShape shape) {
      Set<String> taken = new HashSet<>();
      for (StructField f : shape.rowImage().fields()) {
        byField.put(f.name(), free(f.name(), taken));
      }
      for (Position p : shape.connector().positions()) {
        byPosition.put(p.sourceField(), free(p.column(), taken));
      }
      op = free("op", taken);
    }

    private static String free(String preferred, Set<String> taken) {
      String name = preferred;
      while (taken.contains(name.toLowerCase(Locale.ROOT))
          || ReservedNames.clash(name, ReservedNames.RESCUED_DATA_DEFAULT).isPresent()) {
        name = PREFIX + name;
      }
      taken.add(name.toLowerCase(Locale.ROOT));
      return name;
    }

    String of(String field) {
      return byField.get(field);
    }

    String of(Position p) {
      return byPosition.get(p.sourceField());
    }

    String op() {
      return op;
    }
  }
}
