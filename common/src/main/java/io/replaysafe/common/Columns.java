package io.replaysafe.common;

import java.util.List;

/** Column names reserved by the ingestion contract: bronze writes them, silver reads them. */
public final class Columns {
  /** Raw text of a line that is not a JSON object; typed columns are null on that row. */
  public static final String CORRUPT_RECORD = "_corrupt_record";

  /**
   * The raw bytes of a line that is not valid UTF-8, in base64 (RFC 4648, with padding); null
   * otherwise. {@link #CORRUPT_RECORD} then holds the text with U+FFFD where bytes were invalid.
   */
  public static final String CORRUPT_RECORD_BASE64 = "_corrupt_record_base64";

  /** Full path of the object the row came from ({@code _metadata.file_path}). */
  public static final String SOURCE_FILE = "source_file";

  /** Name of the object the row came from ({@code _metadata.file_name}). */
  public static final String SOURCE_FILE_NAME = "source_file_name";

  /** Size in bytes of the object the row came from ({@code _metadata.file_size}). */
  public static final String SOURCE_FILE_SIZE = "source_file_size";

  /**
   * Modification time of the object the row came from ({@code _metadata.file_modification_time}).
   */
  public static final String SOURCE_FILE_MTIME = "source_file_mtime";

  /** When the bronze micro-batch that wrote the row started. */
  public static final String INGESTED_AT = "ingested_at";

  /** Key inside the rescued-data JSON naming the file, as Databricks does. */
  public static final String RESCUED_FILE_PATH = "_file_path";

  public static final List<String> PROVENANCE =
      List.of(SOURCE_FILE, SOURCE_FILE_NAME, SOURCE_FILE_SIZE, SOURCE_FILE_MTIME, INGESTED_AT);

  private Columns() {}
}
