package io.replaysafe.silver.draft;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A sample's inferred schema read as Debezium change events, as a Kafka Connect S3 sink writes them
 * with schemas off: top-level {@code before}, {@code after}, {@code source}, {@code op} and {@code
 * ts_ms}, with the connector's log position in {@code source} ({@code lsn} for PostgreSQL; {@code
 * file}, {@code pos} and {@code row} for MySQL). The schema alone only makes a sample a candidate:
 * {@link EnvelopeFinder} also requires every {@code op} to be one Debezium writes.
 *
 * @param rowImage the table's row: the fields of {@code after} and {@code before} together (a
 *     delete's {@code after} and most {@code before}s are null, so inference sees each only in
 *     part), in the table's column order once {@link #inColumnOrder} has run
 * @param schema the source schema to draft: the inferred one with {@code before} and {@code after}
 *     both declared as {@link #rowImage}, as Debezium's value schema declares them
 */
public record EnvelopeShape(Connector connector, StructType rowImage, StructType schema) {
  /** The envelope's own top-level fields, as Debezium names them. */
  public static final List<String> ENVELOPE_FIELDS =
      List.of("before", "after", "source", "op", "ts_ms");

  /** A connector whose log position orders a key's events, and where {@code source} holds it. */
  public enum Connector {
    POSTGRESQL(
        "PostgreSQL", "write-ahead log position", List.of(new Position("lsn", "lsn", true)), ""),
    MYSQL(
        "MySQL",
        "binlog position",
        List.of(
            new Position("binlog_file", "file", false),
            new Position("binlog_pos", "pos", true),
            new Position("binlog_row", "row", true)),
        ", compared in that order (binlog file names are zero-padded, so they order as text)");

    private final String displayName;
    private final String position;
    private final List<Position> positions;
    private final String comparison;

    Connector(String displayName, String position, List<Position> positions, String comparison) {
      this.displayName = displayName;
      this.position = position;
      this.positions = positions;
      this.comparison = comparison;
    }

    /** How Debezium's documentation names the connector: "PostgreSQL", "MySQL". */
    public String displayName() {
      return displayName;
    }

    /** What the position is, in words, for the draft's evidence. */
    public String position() {
      return position;
    }

    /** The {@code source} fields that make the position, in comparison order. */
    public List<Position> positions() {
      return positions;
    }

    /** How the position's fields compare, in words ("" for one field). */
    String comparison() {
      return comparison;
    }
  }

  /**
   * One field of the log position.
   *
   * @param column the derived column's preferred name (silver/README.md's, CDC feeds)
   * @param sourceField the field of {@code source} it is read from
   * @param numeric true when the field must be a whole number, false when it is text
   */
  public record Position(String column, String sourceField, boolean numeric) {}

  public EnvelopeShape {
    if (rowImage.isEmpty()) {
      throw new IllegalArgumentException("An envelope's row image has at least one field");
    }
  }

  /**
   * The envelope {@code inferred} describes, or empty when it is not one: a field of {@link
   * #ENVELOPE_FIELDS} is missing, {@code op} is not text, {@code source} holds no position a
   * connector of {@link Connector} writes, or neither {@code before} nor {@code after} has fields.
   * ({@code before} or {@code after} null on every sampled line is inferred as {@code STRING}.)
   */
  public static Optional<EnvelopeShape> of(StructType inferred) {
    List<String> names = List.of(inferred.fieldNames());
    if (!names.containsAll(ENVELOPE_FIELDS)
        || !(type(inferred, "op") instanceof StringType)
        || !(type(inferred, "source") instanceof StructType source)) {
      return Optional.empty();
    }
    Optional<Connector> connector = connector(source);
    Optional<StructType> before = image(type(inferred, "before"));
    Optional<StructType> after = image(type(inferred, "after"));
    if (connector.isEmpty() || before.isEmpty() || after.isEmpty()) {
      return Optional.empty();
    }
    // after first: it is the whole row for creates, updates and snapshot reads; before adds what
    // only deletes showed. The same column has the same type in both images (one table), and a
    // field null in every sampled before is inferred as STRING, so after's type wins.
    Map<String, StructField> row = new LinkedHashMap<>();
    for (StructField f : after.get().fields()) {
      row.put(f.name(), f);
    }
    for (StructField f : before.get().fields()) {
      row.putIfAbsent(f.name(), f);
    }
    if (row.isEmpty()) {
      return Optional.empty();
    }
    StructType image = new StructType(row.values().toArray(StructField[]::new));
    return Optional.of(new EnvelopeShape(connector.get(), image, withImages(inferred, image)));
  }

  /**
   * The same shape with the row image's fields in {@code order} (the table's column order, as
   * Debezium writes them), fields it does not name after them in their current order.
   */
  public EnvelopeShape inColumnOrder(List<String> order) {
    List<StructField> ordered = new ArrayList<>();
    for (String name : order) {
      for (StructField f : rowImage.fields()) {
        if (f.name().equals(name) && !ordered.contains(f)) {
          ordered.add(f);
        }
      }
    }
    for (StructField f : rowImage.fields()) {
      if (!ordered.contains(f)) {
        ordered.add(f);
      }
    }
    StructType image = new StructType(ordered.toArray(StructField[]::new));
    return new EnvelopeShape(connector, image, withImages(schema, image));
  }

  private static Optional<Connector> connector(StructType source) {
    for (Connector c : Connector.values()) {
      boolean all = true;
      for (Position p : c.positions()) {
        DataType t = type(source, p.sourceField());
        all &= p.numeric() ? isWholeNumber(t) : t instanceof StringType;
      }
      if (all) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  private static boolean isWholeNumber(DataType t) {
    return t == DataTypes.LongType
        || t == DataTypes.IntegerType
        || t == DataTypes.ShortType
        || t == DataTypes.ByteType
        || (t instanceof DecimalType d && d.scale() == 0);
  }

  /** A row image's fields; no fields for an image null on every line; empty for anything else. */
  private static Optional<StructType> image(DataType type) {
    if (type instanceof StructType struct) {
      return Optional.of(struct);
    }
    return type instanceof StringType ? Optional.of(new StructType()) : Optional.empty();
  }

  private static StructType withImages(StructType schema, StructType image) {
    StructField[] fields = schema.fields().clone();
    for (int i = 0; i < fields.length; i++) {
      if (fields[i].name().equals("before") || fields[i].name().equals("after")) {
        fields[i] = new StructField(fields[i].name(), image, true, fields[i].metadata());
      }
    }
    return new StructType(fields);
  }

  private static DataType type(StructType schema, String name) {
    for (StructField f : schema.fields()) {
      if (f.name().equals(name)) {
        return f.dataType();
      }
    }
    return DataTypes.NullType;
  }
}
