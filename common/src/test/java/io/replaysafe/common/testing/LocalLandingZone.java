package io.replaysafe.common.testing;

import io.replaysafe.common.config.StorageConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/** A landing zone on local disk. */
public final class LocalLandingZone implements LandingZone {
  private final Path root;

  public LocalLandingZone(Path root) {
    this.root = root.toAbsolutePath();
  }

  @Override
  public String root() {
    return root.toString();
  }

  @Override
  public String fileUri(String relative) {
    return "file:" + root.resolve(relative);
  }

  @Override
  public void put(String relative, byte[] content) {
    try {
      Path file = root.resolve(relative);
      Files.createDirectories(file.getParent());
      Files.write(file, content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Instant modificationTime(String relative) {
    try {
      return Files.getLastModifiedTime(root.resolve(relative)).toInstant();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void deleteTree(String relative) {
    Path target = root.resolve(relative);
    if (!Files.exists(target)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(target)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Optional<StorageConfig> storage() {
    return Optional.empty();
  }
}
