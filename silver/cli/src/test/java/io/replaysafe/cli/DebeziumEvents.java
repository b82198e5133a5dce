package io.replaysafe.cli;

/**
 * Change events shaped as Debezium documents them, one JSON line each, as a Kafka Connect S3 sink
 * writes them (JSON converter, schemas off): the PostgreSQL connector's for table public.orders
 * (id, status, total, notes) and the MySQL connector's for inventory.customers (id, first_name,
 * last_name, email), the tables of Debezium's tutorials.
 */
final class DebeziumEvents {
  /** A Kafka tombstone, as the S3 sink writes it with behavior.on.null.values=write. */
  static final String KAFKA_TOMBSTONE = "null";

  private DebeziumEvents() {}

  /** The PostgreSQL connector: {@code source.lsn} is the position in the write-ahead log. */
  static final class Postgres {
    private Postgres() {}

    /** The row image: {@code {"id":1,"status":"new","total":10.50,"notes":"gift"}}. */
    static String row(long id, String status, String total, String notes) {
      return "{\"id\":"
          + id
          + ",\"status\":"
          + quoted(status)
          + ",\"total\":"
          + total
          + ",\"notes\":"
          + quoted(notes)
          + "}";
    }

    /** A delete's before image under REPLICA IDENTITY DEFAULT: the primary key only. */
    static String keyOnly(long id) {
      return "{\"id\":" + id + ",\"status\":null,\"total\":null,\"notes\":null}";
    }

    static String event(String op, String before, String after, long lsn, String snapshot) {
      return "{\"before\":"
          + before
          + ",\"after\":"
          + after
          + ",\"source\":{\"version\":\"2.7.3.Final\",\"connector\":\"postgresql\","
          + "\"name\":\"shop\",\"ts_ms\":1700000000000,\"snapshot\":\""
          + snapshot
          + "\",\"db\":\"shop\",\"sequence\":\"[null,\\\""
          + lsn
          + "\\\"]\",\"schema\":\"public\",\"table\":\"orders\",\"txId\":"
          + (500 + lsn)
          + ",\"lsn\":"
          + lsn
          + ",\"xmin\":null},\"op\":\""
          + op
          + "\",\"ts_ms\":1700000000"
          + lsn
          + ",\"transaction\":null}";
    }

    /** A snapshot read: the connector reads every row at the snapshot's one LSN. */
    static String read(long id, String status, String total, long lsn) {
      return event("r", "null", row(id, status, total, "first"), lsn, "true");
    }

    static String create(long id, String status, String total, long lsn) {
      return event("c", "null", row(id, status, total, "first"), lsn, "false");
    }

    /** An update under REPLICA IDENTITY DEFAULT: {@code before} is null. */
    static String update(long id, String status, String total, String notes, long lsn) {
      return event("u", "null", row(id, status, total, notes), lsn, "false");
    }

    static String delete(long id, long lsn) {
      return event("d", keyOnly(id), "null", lsn, "false");
    }

    /** A truncate: no row image, the LSN in source (skipped.operations=none). */
    static String truncate(long lsn) {
      return event("t", "null", "null", lsn, "false");
    }
  }

  /**
   * The MySQL connector: the binlog position is {@code source.file}, {@code source.pos} and, for an
   * event that changes several rows, {@code source.row}; before is the whole row (binlog row image
   * FULL).
   */
  static final class MySql {
    private MySql() {}

    static String row(long id, String first, String last, String email) {
      return "{\"id\":"
          + id
          + ",\"first_name\":"
          + quoted(first)
          + ",\"last_name\":"
          + quoted(last)
          + ",\"email\":"
          + quoted(email)
          + "}";
    }

    static String event(
        String op, String before, String after, String file, long pos, int row, String snapshot) {
      return "{\"before\":"
          + before
          + ",\"after\":"
          + after
          + ",\"source\":{\"version\":\"2.7.3.Final\",\"connector\":\"mysql\","
          + "\"name\":\"mysql-server-1\",\"ts_ms\":1465581029000,\"snapshot\":\""
          + snapshot
          + "\",\"db\":\"inventory\",\"table\":\"customers\",\"server_id\":223344,"
          + "\"gtid\":null,\"file\":\""
          + file
          + "\",\"pos\":"
          + pos
          + ",\"row\":"
          + row
          + ",\"thread\":7,\"query\":null},\"op\":\""
          + op
          + "\",\"ts_ms\":14655810295"
          + row
          + ",\"transaction\":null}";
    }
  }

  private static String quoted(String s) {
    return s == null ? "null" : "\"" + s + "\"";
  }
}
