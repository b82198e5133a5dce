package io.replaysafe.common.testing;

import java.nio.file.Path;

/**
 * The pipeline file of a test that keeps everything under one directory: files land in {@code
 * dir/landing}, the tables are {@code dir/bronze} and {@code dir/silver}, their checkpoints under
 * {@code dir/checkpoints}. Tests vary only the name, the source schema and the silver section.
 */
public final class PipelineYaml {
  private PipelineYaml() {}

  /**
   * @param schema the source schema, DDL ({@code "order_id BIGINT, ..."})
   * @param silverYaml the silver section's own keys (keys, sequenceBy, ...), one per line, not
   *     indented: they are placed under {@code silver:} after its path and checkpoint
   */
  public static String local(String name, Path dir, String schema, String silverYaml) {
    return local(name, dir, "silver", schema, silverYaml);
  }

  /**
   * As {@link #local(String, Path, String, String)} with silver's table at {@code dir/silverName}
   * and its checkpoint at {@code dir/checkpoints/silverName}: pipelines that differ only in their
   * silver name share the landing directory and bronze, so several contracts read the same bronze.
   */
  public static String local(
      String name, Path dir, String silverName, String schema, String silverYaml) {
    return "name: "
        + name
        + "\nsource:\n  path: "
        + dir.resolve("landing")
        + "\n  schema: \""
        + schema
        + "\"\nbronze:\n  path: "
        + dir.resolve("bronze")
        + "\n  checkpoint: "
        + dir.resolve("checkpoints/bronze")
        + "\nsilver:\n  path: "
        + dir.resolve(silverName)
        + "\n  checkpoint: "
        + dir.resolve("checkpoints").resolve(silverName)
        + "\n"
        + silverYaml.indent(2);
  }
}
