package io.replaysafe.cli.bench;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a run's S3 requests went: each request the proxy recorded, by the directory it touched
 * under the side's root (a table's {@code _delta_log}, a checkpoint's {@code offsets}, the landing
 * prefix), at most three levels deep, and by kind. A LIST counts for the prefix it lists, an object
 * request for the object's directory; a HEAD of a directory's name without its slash counts for the
 * directory above it.
 */
final class RequestAreas {
  private static final int DEPTH = 3;

  private RequestAreas() {}

  /** Area, then kind, then count. */
  static Map<String, Map<String, Long>> of(List<String> recordedTargets, String sideDirectory) {
    Map<String, Map<String, Long>> areas = new TreeMap<>();
    for (String recorded : recordedTargets) {
      String kind = recorded.substring(0, recorded.indexOf(' '));
      String area = area(kind, recorded.substring(recorded.indexOf(' ') + 1), sideDirectory);
      areas.computeIfAbsent(area, a -> new TreeMap<>()).merge(kind, 1L, Long::sum);
    }
    return areas;
  }

  static String area(String kind, String target, String sideDirectory) {
    int q = target.indexOf('?');
    String path = decode(q < 0 ? target : target.substring(0, q));
    String query = q < 0 ? "" : target.substring(q + 1);
    String[] parts = path.replaceAll("^/+", "").split("/", 2);
    String bucket = parts[0];
    String key = parts.length > 1 ? parts[1] : "";
    if (kind.equals("LIST")) {
      key = "";
      for (String parameter : query.split("&")) {
        if (parameter.startsWith("prefix=")) {
          key = decode(parameter.substring("prefix=".length()));
        }
      }
    }
    boolean directory = key.isEmpty() || key.endsWith("/");
    if (key.startsWith(sideDirectory + "/")) {
      key = key.substring(sideDirectory.length() + 1);
    }
    List<String> segments = Arrays.stream(key.split("/")).filter(s -> !s.isEmpty()).toList();
    // An object's (or a listed prefix's) last segment is a file name: its directory is the area.
    if (!directory && !segments.isEmpty()) {
      segments = segments.subList(0, segments.size() - 1);
    }
    // S3A probes whether a file is a directory by listing "file/": names with a dot (.json,
    // .crc, .parquet, a temporary copy) are files here, never directories.
    for (int i = 0; i < segments.size(); i++) {
      if (segments.get(i).contains(".")) {
        segments = segments.subList(0, i);
        break;
      }
    }
    segments = segments.subList(0, Math.min(DEPTH, segments.size()));
    return bucket + ":" + (segments.isEmpty() ? "/" : String.join("/", segments));
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }
}
