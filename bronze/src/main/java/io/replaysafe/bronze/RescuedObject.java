package io.replaysafe.bronze;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.replaysafe.common.Columns;
import java.io.IOException;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The rescued object, built only when something is rescued. Each name appears once: a name already
 * taken at that level (a repeated key, or {@code _file_path} at the top, which belongs to the
 * provenance entry) is stored as {@code name#2}, {@code name#3}, ... (the first free one).
 */
final class RescuedObject {
  private final RescuedObject parent;
  private final String name;
  private LinkedHashMap<String, Object> entries;
  String attachedAs;

  RescuedObject(RescuedObject parent, String name) {
    this.parent = parent;
    this.name = name;
  }

  boolean isEmpty() {
    return entries == null;
  }

  void put(String key, String rawJson) {
    attach();
    entries.put(freeName(key), rawJson);
  }

  void replace(String key, String rawJson) {
    entries.put(key, rawJson);
  }

  private void attach() {
    if (entries != null) {
      return;
    }
    entries = new LinkedHashMap<>();
    if (parent != null) {
      parent.attach();
      attachedAs = parent.freeName(name);
      parent.entries.put(attachedAs, this);
    }
  }

  private String freeName(String key) {
    if (!taken(key)) {
      return key;
    }
    for (int i = 2; ; i++) {
      String candidate = key + "#" + i;
      if (!taken(candidate)) {
        return candidate;
      }
    }
  }

  private boolean taken(String key) {
    return entries.containsKey(key) || parent == null && Columns.RESCUED_FILE_PATH.equals(key);
  }

  String toJson(JsonFactory factory, String filePath) throws IOException {
    StringWriter out = new StringWriter();
    try (JsonGenerator generator = factory.createGenerator(out)) {
      write(generator);
      out.flush();
    }
    // The provenance entry last, as Databricks writes it.
    StringBuilder json = new StringBuilder(out.toString());
    json.setLength(json.length() - 1);
    StringWriter path = new StringWriter();
    try (JsonGenerator generator = factory.createGenerator(path)) {
      generator.writeString(filePath);
    }
    json.append(json.length() > 1 ? "," : "")
        .append('"')
        .append(Columns.RESCUED_FILE_PATH)
        .append("\":")
        .append(path)
        .append('}');
    return json.toString();
  }

  private void write(JsonGenerator generator) throws IOException {
    generator.writeStartObject();
    for (Map.Entry<String, Object> entry : entries.entrySet()) {
      generator.writeFieldName(entry.getKey());
      if (entry.getValue() instanceof RescuedObject nested) {
        nested.write(generator);
      } else {
        generator.writeRawValue((String) entry.getValue());
      }
    }
    generator.writeEndObject();
  }
}
