package io.replaysafe.silver;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.spark.api.java.function.FlatMapGroupsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;

/**
 * Builds one key's history from all of its applied events, in sequence order, with AUTO CDC's SCD
 * type 2 rules: an upsert whose tracked columns differ from the current version's closes it and
 * opens a new version; a change confined to untracked columns updates the current version in place;
 * a delete closes the current version at the delete's sequence and opens none. Rebuilding from
 * events is what places a late event correctly: between two versions, before the first, or before a
 * delete (without reopening the key).
 */
final class HistoryBuilder implements FlatMapGroupsFunction<Row, Row, Row> {
  private static final long serialVersionUID = 1L;

  private final int[] silverPositions;
  private final int[] trackedPositions;
  private final boolean[] carryOnNull;
  private final int[] sequencePositions;
  private final int isDelete;
  private final int hash;
  private final int sourceFile;
  private final int bronzeVersion;

  HistoryBuilder(SilverContract contract) {
    StructType events = contract.eventsSchema();
    List<String> silverColumns = contract.silverColumns();
    silverPositions = silverColumns.stream().mapToInt(events::fieldIndex).toArray();
    trackedPositions = contract.trackedColumns().stream().mapToInt(events::fieldIndex).toArray();
    carryOnNull = new boolean[silverColumns.size()];
    for (int i = 0; i < silverColumns.size(); i++) {
      carryOnNull[i] =
          contract.silver().ignoreNullUpdates()
              && !contract.silver().identityColumns().contains(silverColumns.get(i));
    }
    sequencePositions = contract.sequenceBy().stream().mapToInt(events::fieldIndex).toArray();
    isDelete = events.fieldIndex(SilverContract.IS_DELETE);
    hash = events.fieldIndex(SilverContract.PAYLOAD_HASH);
    sourceFile = events.fieldIndex(SilverContract.SOURCE_FILE);
    bronzeVersion = events.fieldIndex(SilverContract.BRONZE_VERSION);
  }

  @Override
  public Iterator<Row> call(Row key, Iterator<Row> input) {
    List<Row> events = new ArrayList<>();
    input.forEachRemaining(events::add);
    events.sort(Comparator.comparing(this::sequence, HistoryBuilder::compareSequences));

    List<Object[]> versions = new ArrayList<>();
    Object[] current = null;
    Object[] lastValues = null;
    for (Row event : events) {
      Object sequence = sequenceValue(event);
      if (event.getBoolean(isDelete)) {
        if (current != null) {
          current[silverPositions.length + 1] = sequence; // __END_AT
          current = null;
        }
        lastValues = null; // a delete ends the key: nothing carries over
        continue;
      }
      Object[] values = new Object[silverPositions.length];
      for (int i = 0; i < silverPositions.length; i++) {
        Object v = event.get(silverPositions[i]);
        values[i] = v == null && carryOnNull[i] && lastValues != null ? lastValues[i] : v;
      }
      if (current != null && sameTracked(current, values, event)) {
        // Untracked change (or the same tracked state): update the current version in place.
        System.arraycopy(values, 0, current, 0, values.length);
        current[silverPositions.length + 2] = event.get(hash);
        current[silverPositions.length + 3] = event.get(sourceFile);
        current[silverPositions.length + 4] = event.get(bronzeVersion);
      } else {
        if (current != null) {
          current[silverPositions.length + 1] = sequence;
        }
        current = new Object[silverPositions.length + 6];
        System.arraycopy(values, 0, current, 0, values.length);
        current[silverPositions.length] = sequence; // __START_AT
        current[silverPositions.length + 2] = event.get(hash);
        current[silverPositions.length + 3] = event.get(sourceFile);
        current[silverPositions.length + 4] = event.get(bronzeVersion);
        versions.add(current);
      }
      lastValues = values;
    }
    return versions.stream().map(RowFactory::create).iterator();
  }

  private boolean sameTracked(Object[] version, Object[] values, Row event) {
    for (int position : trackedPositions) {
      int i = indexOf(silverPositions, position);
      if (!Objects.equals(version[i], values[i])) {
        return false;
      }
    }
    return true;
  }

  private static int indexOf(int[] positions, int position) {
    for (int i = 0; i < positions.length; i++) {
      if (positions[i] == position) {
        return i;
      }
    }
    throw new IllegalStateException("tracked column is not a silver column");
  }

  private Object[] sequence(Row event) {
    Object[] values = new Object[sequencePositions.length];
    for (int i = 0; i < values.length; i++) {
      values[i] = event.get(sequencePositions[i]);
    }
    return values;
  }

  /** The sequence as stored in __START_AT/__END_AT: the value, or a struct for several columns. */
  private Object sequenceValue(Row event) {
    Object[] values = sequence(event);
    return values.length == 1 ? values[0] : RowFactory.create(values);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static int compareSequences(Object[] a, Object[] b) {
    for (int i = 0; i < a.length; i++) {
      int c = ((Comparable) a[i]).compareTo(b[i]);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }
}
