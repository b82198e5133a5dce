package io.replaysafe.common.testing;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * System properties a test sets to reach a code path with little data (a range of four files, a
 * lookup chunk of three), put back as they were after each test: set to their earlier value, or
 * cleared when they were not set. The test JVM's session is shared by every test class, so a
 * property left behind would change the tests that run after.
 *
 * <pre>{@code
 * @RegisterExtension final SystemProperties properties = new SystemProperties();
 *
 * @BeforeEach
 * void smallRanges() {
 *   properties.set(ListedRanges.RANGE_FILES_PROPERTY, "4");
 * }
 * }</pre>
 */
public final class SystemProperties implements AfterEachCallback {
  /** Each property's value before this test first set it; empty when it was not set. */
  private final Map<String, Optional<String>> before = new LinkedHashMap<>();

  /** Sets {@code key}, remembering its value from before the first time this test set it. */
  public SystemProperties set(String key, String value) {
    before.putIfAbsent(key, Optional.ofNullable(System.getProperty(key)));
    System.setProperty(key, value);
    return this;
  }

  /** Puts back every property set since the last restore. */
  public void restore() {
    before.forEach(
        (key, value) ->
            value.ifPresentOrElse(
                v -> System.setProperty(key, v), () -> System.clearProperty(key)));
    before.clear();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    restore();
  }

  /** {@code body}'s result with {@code key} set to {@code value}, the property put back after. */
  public static <T> T with(String key, String value, Supplier<T> body) {
    SystemProperties properties = new SystemProperties().set(key, value);
    try {
      return body.get();
    } finally {
      properties.restore();
    }
  }
}
