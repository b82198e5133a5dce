package io.replaysafe.bronze;

import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** Field name to position, exact match only: a case mismatch is rescued, not matched. */
final class FieldIndex {
  final Map<String, Integer> exact = new HashMap<>();

  /**
   * The names interned, by position. Jackson interns the field names it reads, so when a line lists
   * its fields in the schema's order one reference comparison finds each field, instead of a hash
   * lookup that compares the characters. Null where the map holds another position (a name the
   * schema repeats), so both ways always agree.
   */
  final String[] interned;

  FieldIndex(StructType type) {
    StructField[] fields = type.fields();
    for (int i = 0; i < fields.length; i++) {
      exact.put(fields[i].name(), i);
    }
    interned = new String[fields.length];
    for (int i = 0; i < fields.length; i++) {
      if (exact.get(fields[i].name()) == i) {
        interned[i] = fields[i].name().intern();
      }
    }
  }

  /** The field's position, or -1; {@code expected} is only a hint for the fast path. */
  int position(String name, int expected) {
    if (expected < interned.length && interned[expected] == name) {
      return expected;
    }
    Integer position = exact.get(name);
    return position == null ? -1 : position;
  }
}
