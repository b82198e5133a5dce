package io.replaysafe.silver;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.length;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.round;
import static org.apache.spark.sql.functions.sha2;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.when;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.replaysafe.common.io.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * How the payload hash is computed, versioned with the contract so that a hash stored under an
 * earlier contract version still means the same payload under a later one.
 *
 * <p>The rule is a list of entries, one per payload column, each with the type the column had when
 * it joined the payload. The hash is SHA-256 of a JSON object built from the entries:
 *
 * <ul>
 *   <li>the columns of the first contract version ({@code optional} false) are always present, in
 *       their order, nulls kept: exactly the JSON the first version hashed;
 *   <li>a column added to the payload later ({@code optional} true) is appended only when it is not
 *       null;
 *   <li>a column whose type was widened since it joined is hashed at the type it joined with when
 *       the value converts back without loss (after {@code floatScale} rounding); a struct is
 *       hashed with the fields it had then, and a field added to it since only counts when not
 *       null. A value that does not fit the old shape is appended again at its new type.
 * </ul>
 *
 * So an event delivered before a column was added and replayed after it (the new column null)
 * hashes as it did, an exact retry; an event that sets the new column, or carries a value the old
 * type could not hold, hashes differently: an update at a higher sequence, a conflict at the same
 * one. With no change since the first version the expression is the original one.
 *
 * @param floatScale the scale floats, doubles and decimals are rounded to before hashing
 */
public record HashRule(List<Entry> entries, int floatScale) {
  private static final ObjectMapper JSON = Json.mapper();

  /** One payload column: its type when it joined the payload, and whether it joined later. */
  public record Entry(String column, DataType type, boolean optional) {}

  public HashRule {
    entries = List.copyOf(entries);
  }

  /** The rule of a first contract version: every payload column present, at its type. */
  public static HashRule initial(List<String> payloadColumns, StructType schema, int floatScale) {
    List<Entry> entries = new ArrayList<>();
    for (String c : payloadColumns) {
      entries.add(new Entry(c, schema.apply(c).dataType(), false));
    }
    return new HashRule(entries, floatScale);
  }

  /**
   * The rule of the next contract version: this rule's entries unchanged, then the new payload
   * columns as optional entries. A payload column removed, or a new float scale with a fractional
   * column in the payload, would change the hash of every stored row: refused.
   */
  public HashRule next(List<String> payloadColumns, StructType schema, int newFloatScale) {
    List<String> removed =
        entries.stream().map(Entry::column).filter(c -> !payloadColumns.contains(c)).toList();
    if (!removed.isEmpty()) {
      throw SilverErrors.contractChange(
          "remove "
              + removed
              + " from the payload in place (silver.payloadColumns, or the default of every"
              + " business column)",
          "stored rows were hashed with them, so every replay of a stored event would become a"
              + " conflict",
          "Keep them in the payload, or write silver anew under the new contract (new"
              + " silver.path and silver.checkpoint)");
    }
    List<Entry> next = new ArrayList<>(entries);
    for (String c : payloadColumns) {
      if (entries.stream().noneMatch(e -> e.column().equals(c))) {
        next.add(new Entry(c, schema.apply(c).dataType(), true));
      }
    }
    if (newFloatScale != floatScale
        && next.stream().anyMatch(e -> isFractional(schema.apply(e.column()).dataType()))) {
      throw SilverErrors.contractChange(
          "change silver.floatScale from " + floatScale + " to " + newFloatScale + " in place",
          "the payload has fractional columns, and stored rows were hashed at the old scale, so"
              + " replays would become conflicts",
          "Keep floatScale "
              + floatScale
              + ", or write silver anew (new silver.path and silver.checkpoint)");
    }
    return new HashRule(next, newFloatScale);
  }

  /** True when the rule is a first version's with the schema's current types. */
  boolean isInitial(StructType schema) {
    return entries.stream()
        .allMatch(e -> !e.optional() && e.type().equals(schema.apply(e.column()).dataType()));
  }

  /** The payload hash of a bronze row whose columns have {@code schema}'s types. */
  public Column expression(StructType schema) {
    if (isInitial(schema)) {
      List<Column> fields = new ArrayList<>();
      for (Entry e : entries) {
        fields.add(rounded(col(SilverContract.q(e.column())), e.type()).as(e.column()));
      }
      return sha2(json(fields), 256);
    }
    List<Column> base = new ArrayList<>();
    List<Column> extra = new ArrayList<>();
    for (Entry e : entries) {
      Column value = col(SilverContract.q(e.column()));
      DataType now = schema.apply(e.column()).dataType();
      Conformed c = conform(value, now, e.type());
      Column hashed = rounded(c.value(), e.type()).as(e.column());
      Column wide = member(rounded(value, now).as(e.column()));
      if (e.optional()) {
        extra.add(when(value.isNotNull(), member(hashed)));
      } else {
        base.add(hashed);
      }
      if (!now.equals(e.type())) {
        extra.add(when(functions.not(c.faithful()), wide));
      }
    }
    List<Column> members = new ArrayList<>();
    if (!base.isEmpty()) {
      Column whole = json(base);
      members.add(whole.substr(lit(2), length(whole).minus(2)));
    }
    members.addAll(extra);
    return sha2(concat(lit("{"), concat_ws(",", members.toArray(Column[]::new)), lit("}")), 256);
  }

  /** {@code "name":value} of one column, nulls kept. */
  private static Column member(Column named) {
    Column one = json(List.of(named));
    return one.substr(lit(2), length(one).minus(2));
  }

  private static Column json(List<Column> fields) {
    return to_json(struct(fields.toArray(Column[]::new)), Map.of("ignoreNullFields", "false"));
  }

  private Column rounded(Column value, DataType type) {
    return isFractional(type) ? round(value, floatScale) : value;
  }

  private static boolean isFractional(DataType type) {
    return type == DataTypes.DoubleType
        || type == DataTypes.FloatType
        || type instanceof DecimalType;
  }

  /** A value brought to an older type, and whether that lost nothing. */
  private record Conformed(Column value, Column faithful) {}

  private Conformed conform(Column value, DataType now, DataType old) {
    if (now.equals(old)) {
      return new Conformed(value, lit(true));
    }
    if (now instanceof StructType n && old instanceof StructType o) {
      List<Column> fields = new ArrayList<>();
      Column faithful = lit(true);
      for (StructField f : o.fields()) {
        Conformed c = conform(value.getField(f.name()), n.apply(f.name()).dataType(), f.dataType());
        fields.add(c.value().as(f.name()));
        faithful = faithful.and(c.faithful());
      }
      for (StructField f : n.fields()) {
        if (!o.getFieldIndex(f.name()).isDefined()) {
          faithful = faithful.and(value.getField(f.name()).isNull());
        }
      }
      return new Conformed(
          when(value.isNull(), lit(null).cast(o)).otherwise(struct(fields.toArray(Column[]::new))),
          value.isNull().or(faithful));
    }
    if (now instanceof ArrayType n && old instanceof ArrayType o) {
      return new Conformed(
          functions.transform(value, x -> conform(x, n.elementType(), o.elementType()).value()),
          value
              .isNull()
              .or(
                  functions.forall(
                      value,
                      x ->
                          functions.coalesce(
                              conform(x, n.elementType(), o.elementType()).faithful(),
                              lit(false)))));
    }
    if (now instanceof MapType n && old instanceof MapType o) {
      return new Conformed(
          functions.transform_values(
              value, (k, x) -> conform(x, n.valueType(), o.valueType()).value()),
          value
              .isNull()
              .or(
                  functions.forall(
                      functions.map_values(value),
                      x ->
                          functions.coalesce(
                              conform(x, n.valueType(), o.valueType()).faithful(), lit(false)))));
    }
    // A widened atomic type: back to the old type when the value survives the round trip.
    Column back = value.try_cast(old);
    Column same =
        isFractional(now)
            ? rounded(back.cast(now), now).eqNullSafe(rounded(value, now))
            : back.cast(now).eqNullSafe(value);
    return new Conformed(back, same);
  }

  /** The rule as JSON, for the contract history table. */
  public String toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("floatScale", floatScale);
    ArrayNode list = root.putArray("entries");
    for (Entry e : entries) {
      ObjectNode n = list.addObject();
      n.put("column", e.column());
      n.set("type", readTree(e.type().json()));
      n.put("optional", e.optional());
    }
    try {
      return JSON.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  public static HashRule fromJson(String text) {
    JsonNode root = readTree(text);
    List<Entry> entries = new ArrayList<>();
    for (JsonNode n : root.get("entries")) {
      entries.add(
          new Entry(
              n.get("column").asText(),
              DataType.fromJson(n.get("type").toString()),
              n.get("optional").asBoolean()));
    }
    return new HashRule(entries, root.get("floatScale").asInt());
  }

  private static JsonNode readTree(String text) {
    try {
      return JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot read hash rule " + text, e);
    }
  }
}
