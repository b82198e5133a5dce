package io.replaysafe.common;

import java.util.List;

/**
 * Bronze's columns: bronze writes them, silver reads them. The names are {@link ReservedNames}'s,
 * the one list every pipeline file is checked against; these constants name them for bronze.
 */
public final class Columns {
  /** Raw text of a line that is not a JSON object; typed columns are null on that row. */
  public static final String CORRUPT_RECORD = ReservedNames.CORRUPT_RECORD;

  /**
   * The raw bytes of a line that is not valid UTF-8, in base64 (RFC 4648, with padding); null
   * otherwise. {@link #CORRUPT_RECORD} then holds the text with U+FFFD where bytes were invalid.
   */
  public static final String CORRUPT_RECORD_BASE64 = ReservedNames.CORRUPT_RECORD_BASE64;

  /** Full path of the object the row came from ({@code _metadata.file_path}). */
  public static final String SOURCE_FILE = ReservedNames.SOURCE_FILE;

  /** Name of the object the row came from ({@code _metadata.file_name}). */
  public static final String SOURCE_FILE_NAME = ReservedNames.SOURCE_FILE_NAME;

  /** Size in bytes of the object the row came from ({@code _metadata.file_size}). */
  public static final String SOURCE_FILE_SIZE = ReservedNames.SOURCE_FILE_SIZE;

  /**
   * Modification time of the object the row came from ({@code _metadata.file_modification_time}).
   */
  public static final String SOURCE_FILE_MTIME = ReservedNames.SOURCE_FILE_MTIME;

  /** When the bronze micro-batch that wrote the row started. */
  public static final String INGESTED_AT = ReservedNames.INGESTED_AT;

  /** Key inside the rescued-data JSON naming the file, as Databricks does. */
  public static final String RESCUED_FILE_PATH = ReservedNames.RESCUED_FILE_PATH;

  public static final List<String> PROVENANCE = ReservedNames.provenance();

  private Columns() {}
}
