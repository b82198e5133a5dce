package io.replaysafe.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The demo's synthetic order events: small, unfriendly, and each line there for a reason (seed
 * 004's rehearsal data). Keys are order ids, sequences are source versions.
 */
final class DemoData {
  private DemoData() {}

  /** First delivery: object name to JSON lines. */
  static Map<String, List<String>> firstDelivery() {
    Map<String, List<String>> files = new LinkedHashMap<>();
    files.put(
        "orders/2026-11-29/orders-0001.json",
        List.of(
            "{\"order_id\":101,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\",\"amount\":20.5}",
            "{\"order_id\":101,\"source_version\":2,\"status\":\"Shipped\",\"op\":\"UPSERT\",\"amount\":20.5}",
            // an unknown field: kept in _rescued_data
            "{\"order_id\":102,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\",\"amount\":7.25,\"coupon\":\"WELCOME\"}"));
    files.put(
        "orders/2026-11-29/orders-0002.json",
        List.of(
            // an exact duplicate of 101 v2, delivered again
            "{\"order_id\":101,\"source_version\":2,\"status\":\"Shipped\",\"op\":\"UPSERT\",\"amount\":20.5}",
            // a case mismatch: "Status" is rescued, status is null
            "{\"order_id\":103,\"source_version\":1,\"Status\":\"Created\",\"op\":\"UPSERT\",\"amount\":3.0}",
            // a type mismatch: order_id is not a number
            "{\"order_id\":\"104-A\",\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\",\"amount\":9.0}",
            // a malformed line
            "{\"order_id\":105,\"source_version\":1,\"status\":\"Crea"));
    return files;
  }

  /**
   * Second delivery, a day later: a recovery process re-sends an old event in a new object, the
   * producer contradicts itself, and an order is cancelled and deleted.
   */
  static Map<String, List<String>> secondDelivery() {
    Map<String, List<String>> files = new LinkedHashMap<>();
    files.put(
        "orders/2026-11-30/orders-0003.json",
        List.of(
            // an older version of 101, which silver holds at version 2
            "{\"order_id\":101,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\",\"amount\":20.5}",
            // a conflicting equal version: 102 v1 was Created, 7.25
            "{\"order_id\":102,\"source_version\":1,\"status\":\"Cancelled\",\"op\":\"UPSERT\",\"amount\":7.25}",
            // 103 moves on, then is deleted
            "{\"order_id\":103,\"source_version\":2,\"status\":\"Paid\",\"op\":\"UPSERT\",\"amount\":3.0}",
            "{\"order_id\":103,\"source_version\":3,\"status\":null,\"op\":\"DELETE\",\"amount\":null}",
            // a new order
            "{\"order_id\":106,\"source_version\":1,\"status\":\"Created\",\"op\":\"UPSERT\",\"amount\":12.0}"));
    return files;
  }

  /** History demo only: a late event older than every stored version of order 106. */
  static Map<String, List<String>> lateDelivery() {
    Map<String, List<String>> files = new LinkedHashMap<>();
    files.put(
        "orders/2026-12-01/orders-0004.json",
        List.of(
            "{\"order_id\":106,\"source_version\":0,\"status\":\"Quoted\",\"op\":\"UPSERT\",\"amount\":12.0}"));
    return files;
  }

  static String body(List<String> lines) {
    return String.join("\n", lines) + "\n";
  }
}
