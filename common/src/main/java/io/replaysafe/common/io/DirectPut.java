package io.replaysafe.common.io;

import java.io.IOException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A file created to be written whole, overwriting whatever is there, without the probes S3A sends
 * before a create: a HEAD and a LIST (is there a file, or a directory, by that name) even when the
 * file may be overwritten. On S3 the file is one PUT when the stream closes. For a writer that
 * overwrites the file whole, or that checked the file's absence itself; other stores ignore the
 * option and create as usual.
 */
public final class DirectPut {
  /** S3A's create option: no probe before the write. */
  public static final String CREATE_PERFORMANCE = "fs.s3a.create.performance";

  private DirectPut() {}

  public static FSDataOutputStream create(FileSystem fs, Path path) throws IOException {
    FSDataOutputStreamBuilder<?, ?> builder = fs.createFile(path).overwrite(true).recursive();
    builder.opt(CREATE_PERFORMANCE, true);
    return builder.build();
  }
}
