package io.replaysafe.common.s3;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.ContainerNotFoundException;
import org.jclouds.blobstore.domain.Blob;
import org.jclouds.blobstore.domain.BlobMetadata;
import org.jclouds.blobstore.domain.MultipartPart;
import org.jclouds.blobstore.domain.MultipartUpload;
import org.jclouds.blobstore.domain.MutableBlobMetadata;
import org.jclouds.blobstore.domain.MutableStorageMetadata;
import org.jclouds.blobstore.domain.PageSet;
import org.jclouds.blobstore.domain.StorageMetadata;
import org.jclouds.blobstore.domain.StorageType;
import org.jclouds.blobstore.domain.internal.MutableBlobMetadataImpl;
import org.jclouds.blobstore.domain.internal.MutableStorageMetadataImpl;
import org.jclouds.blobstore.domain.internal.PageSetImpl;
import org.jclouds.blobstore.options.CopyOptions;
import org.jclouds.blobstore.options.CreateContainerOptions;
import org.jclouds.blobstore.options.ListContainerOptions;
import org.jclouds.blobstore.options.PutOptions;
import org.jclouds.blobstore.util.BlobStoreUtils;
import org.jclouds.blobstore.util.ForwardingBlobStore;
import org.jclouds.domain.Location;
import org.jclouds.io.Payload;

/**
 * jclouds' transient store with container listings answered from a sorted index of each container's
 * keys; everything else is the delegate's.
 *
 * <p>Why it exists: jclouds 2.7.0's {@code LocalBlobStore.list} loads and copies the metadata of
 * every key in the container (or under the prefix), sorts them all, and only then applies the
 * marker and the page size, for every page. Through S3Proxy a full listing of 100,000 keys (100
 * ListObjectsV2 pages) took 20 s, 0.2 s a page, and its noise hid the listing costs the benchmarks
 * measure. Here a page costs what is on it: a walk of the index from the marker that jumps over
 * each common prefix's keys.
 *
 * <p>A listing is the delegate's, element for element: the same blobs with the same metadata, the
 * same common prefixes (jclouds' {@link StorageType#RELATIVE_PATH} entries, where a blob named like
 * the common prefix, such as S3A's directory marker {@code a/b/}, stands in its place), the same
 * marker, page size and {@code nextMarker} rules, the same options errors. One difference, on
 * purpose: LocalBlobStore marks "no common prefix" with the string {@code NO_PREFIX}, so it drops a
 * real common prefix of that name with all its keys; this lists it, as S3 does. The index follows
 * the writes made through this store (put, copy, remove, multipart, containers): after each one it
 * reads the touched keys back from the delegate under a per-key lock, so that when a write returns
 * the index holds what the delegate holds, whichever of two racing writes refreshed last. Writes
 * made to the delegate directly are not seen; a container this store has no index for is listed by
 * the delegate.
 */
public final class IndexedListingBlobStore extends ForwardingBlobStore {
  /**
   * LocalBlobStore keeps a multipart upload's stub and parts as ordinary blobs named {@code
   * .mpus-<upload id>-<key>-<part number or "stub">}; its listings show them, so the index follows
   * them by that name.
   */
  private static final String MULTIPART_PREFIX = ".mpus-";

  /** LocalBlobStore's page size when the options give none. */
  private static final int DEFAULT_MAX_RESULTS = 1000;

  /** LocalBlobStore's separator, its delimiter when a listing is not recursive. */
  private static final String SEPARATOR = "/";

  private final ConcurrentMap<String, ConcurrentSkipListMap<String, MutableBlobMetadata>> indexes =
      new ConcurrentHashMap<>();
  private final Object[] keyLocks = new Object[256];

  /** Serialises container creation and deletion with the index's own bookkeeping of them. */
  private final Object containerLock = new Object();

  /** Indexes the containers {@code delegate} already has. */
  public IndexedListingBlobStore(BlobStore delegate) {
    super(delegate);
    for (int i = 0; i < keyLocks.length; i++) {
      keyLocks[i] = new Object();
    }
    for (StorageMetadata container : delegate.list()) {
      indexes.put(container.getName(), new ConcurrentSkipListMap<>());
      resync(container.getName(), null);
    }
  }

  @Override
  public PageSet<? extends StorageMetadata> list(String container) {
    return list(container, ListContainerOptions.NONE);
  }

  @Override
  @SuppressWarnings("deprecation") // getDir: LocalBlobStore still honours it, so this does too
  public PageSet<? extends StorageMetadata> list(String container, ListContainerOptions options) {
    NavigableMap<String, MutableBlobMetadata> index = indexes.get(container);
    if (options == null
        || index == null
        || !delegate().containerExists(container)
        || (options.getMaxResults() != null && options.getMaxResults() < 0)) {
      // The delegate's answer, errors included: a missing container, bad options, no index.
      return delegate().list(container, options);
    }
    String dir = options.getDir();
    String prefix = options.getPrefix();
    String delimiter = options.getDelimiter();
    if (dir != null && prefix != null) {
      throw new IllegalArgumentException("Cannot set both prefix and directory");
    }
    if ((dir != null || options.isRecursive()) && delimiter != null) {
      throw new IllegalArgumentException(
          "Cannot set the delimiter if directory or recursive is set");
    }

    // The keys the delegate starts from: all of them, or its range for the prefix (which leaves
    // out keys that continue the prefix with U+FFFF, as it does).
    NavigableMap<String, MutableBlobMetadata> keys =
        prefix == null ? index : index.subMap(prefix, true, prefix + '\uffff', false);
    // What the delegate then keeps and groups: `base` is the part of a key before its
    // common-prefix search; `grouping` is null for a flat listing.
    String base = "";
    String grouping;
    if (dir != null && !dir.isEmpty()) {
      base = dir.endsWith(SEPARATOR) ? dir : dir + SEPARATOR;
      String end = prefixEnd(base);
      keys = end == null ? keys.tailMap(base, false) : keys.subMap(base, false, end, false);
      grouping = options.isRecursive() ? null : SEPARATOR;
    } else if (prefix != null && !prefix.isEmpty()) {
      base = prefix;
      grouping = delimiter != null || !options.isRecursive() ? orSeparator(delimiter) : null;
    } else {
      grouping = !options.isRecursive() || delimiter != null ? orSeparator(delimiter) : null;
    }
    if (grouping != null && grouping.isEmpty()) {
      grouping = null;
    }

    String marker = options.getMarker();
    int maxResults =
        options.getMaxResults() == null ? DEFAULT_MAX_RESULTS : options.getMaxResults();
    if (maxResults == 0) {
      return new PageSetImpl<StorageMetadata>(List.of(), null);
    }
    // One element past the page tells whether the listing is truncated.
    List<MutableStorageMetadata> page = new ArrayList<>();
    Map.Entry<String, MutableBlobMetadata> entry =
        marker == null ? keys.firstEntry() : keys.higherEntry(marker);
    while (entry != null && page.size() <= maxResults) {
      String key = entry.getKey();
      int at = grouping == null ? -1 : key.indexOf(grouping, base.length());
      if (at < 0) {
        page.add(BlobStoreUtils.copy(entry.getValue()));
        entry = keys.higherEntry(key);
        continue;
      }
      // All keys that start with the common prefix are one element, named by the prefix; if a
      // blob has that very name it is the group's first key and is listed instead.
      String commonPrefix = key.substring(0, at + grouping.length());
      if (marker == null || commonPrefix.compareTo(marker) > 0) {
        page.add(
            key.equals(commonPrefix)
                ? BlobStoreUtils.copy(entry.getValue())
                : relativePath(commonPrefix));
      }
      String end = prefixEnd(commonPrefix);
      entry = end == null ? null : keys.ceilingEntry(end);
    }

    String nextMarker = null;
    if (page.size() > maxResults) {
      page = page.subList(0, maxResults);
      nextMarker = page.get(maxResults - 1).getName();
    }
    if (!options.isDetailed()) {
      page.forEach(element -> element.getUserMetadata().clear());
    }
    return new PageSetImpl<StorageMetadata>(page, nextMarker);
  }

  @Override
  public boolean createContainerInLocation(Location location, String container) {
    return createContainerInLocation(location, container, CreateContainerOptions.NONE);
  }

  @Override
  public boolean createContainerInLocation(
      Location location, String container, CreateContainerOptions options) {
    synchronized (containerLock) {
      boolean indexed = indexes.putIfAbsent(container, new ConcurrentSkipListMap<>()) != null;
      boolean created = delegate().createContainerInLocation(location, container, options);
      if (!created && !indexed) {
        // It existed without an index (made in the delegate directly): read what it holds.
        resync(container, null);
      }
      return created;
    }
  }

  @Override
  public void deleteContainer(String container) {
    synchronized (containerLock) {
      try {
        delegate().deleteContainer(container);
      } finally {
        dropIndexIfGone(container);
      }
    }
  }

  @Override
  public boolean deleteContainerIfEmpty(String container) {
    synchronized (containerLock) {
      try {
        return delegate().deleteContainerIfEmpty(container);
      } finally {
        dropIndexIfGone(container);
      }
    }
  }

  @Override
  public void clearContainer(String container) {
    try {
      delegate().clearContainer(container);
    } finally {
      resync(container, null);
    }
  }

  @Override
  public void clearContainer(String container, ListContainerOptions options) {
    try {
      delegate().clearContainer(container, options);
    } finally {
      resync(container, null);
    }
  }

  @Override
  public void createDirectory(String container, String directory) {
    try {
      delegate().createDirectory(container, directory);
    } finally {
      resync(container, null);
    }
  }

  @Override
  public void deleteDirectory(String container, String directory) {
    try {
      delegate().deleteDirectory(container, directory);
    } finally {
      resync(container, null);
    }
  }

  @Override
  public String putBlob(String container, Blob blob) {
    String key = blob.getMetadata().getName();
    try {
      return delegate().putBlob(container, blob);
    } finally {
      refresh(container, key);
    }
  }

  @Override
  public String putBlob(String container, Blob blob, PutOptions options) {
    String key = blob.getMetadata().getName();
    try {
      return delegate().putBlob(container, blob, options);
    } finally {
      refresh(container, key);
    }
  }

  @Override
  public String copyBlob(
      String fromContainer,
      String fromName,
      String toContainer,
      String toName,
      CopyOptions options) {
    try {
      return delegate().copyBlob(fromContainer, fromName, toContainer, toName, options);
    } finally {
      refresh(toContainer, toName);
    }
  }

  @Override
  public void removeBlob(String container, String name) {
    try {
      delegate().removeBlob(container, name);
    } finally {
      refresh(container, name);
    }
  }

  @Override
  public void removeBlobs(String container, Iterable<String> names) {
    List<String> keys = new ArrayList<>();
    names.forEach(keys::add);
    try {
      delegate().removeBlobs(container, keys);
    } finally {
      keys.forEach(key -> refresh(container, key));
    }
  }

  @Override
  public MultipartUpload initiateMultipartUpload(
      String container, BlobMetadata blobMetadata, PutOptions options) {
    MultipartUpload upload = delegate().initiateMultipartUpload(container, blobMetadata, options);
    resync(container, multipartPrefix(upload));
    return upload;
  }

  @Override
  public MultipartPart uploadMultipartPart(
      MultipartUpload upload, int partNumber, Payload payload) {
    try {
      return delegate().uploadMultipartPart(upload, partNumber, payload);
    } finally {
      refresh(upload.containerName(), multipartPrefix(upload) + partNumber);
    }
  }

  @Override
  public String completeMultipartUpload(MultipartUpload upload, List<MultipartPart> parts) {
    try {
      return delegate().completeMultipartUpload(upload, parts);
    } finally {
      refresh(upload.containerName(), upload.blobName());
      resync(upload.containerName(), multipartPrefix(upload));
    }
  }

  @Override
  public void abortMultipartUpload(MultipartUpload upload) {
    try {
      delegate().abortMultipartUpload(upload);
    } finally {
      resync(upload.containerName(), multipartPrefix(upload));
    }
  }

  /**
   * Makes the index's entry for {@code key} what the delegate holds now. The lock orders the
   * read-back and the index write against another refresh of the same key, so the last refresh to
   * run, which follows the last write, decides.
   */
  private void refresh(String container, String key) {
    ConcurrentSkipListMap<String, MutableBlobMetadata> index = indexes.get(container);
    if (index == null) {
      return;
    }
    synchronized (keyLock(container, key)) {
      BlobMetadata metadata;
      try {
        metadata = delegate().blobMetadata(container, key);
      } catch (ContainerNotFoundException e) {
        metadata = null;
      }
      if (metadata == null) {
        index.remove(key);
      } else {
        index.put(
            key,
            metadata instanceof MutableBlobMetadata mutable
                ? mutable
                : new MutableBlobMetadataImpl(metadata));
      }
    }
  }

  /**
   * Refreshes every key under {@code prefix} (null: the whole container) that the delegate or the
   * index has, after a write whose keys are not known one by one.
   */
  private void resync(String container, String prefix) {
    ConcurrentSkipListMap<String, MutableBlobMetadata> index = indexes.get(container);
    if (index == null) {
      return;
    }
    TreeSet<String> keys =
        new TreeSet<>(
            prefix == null
                ? index.keySet()
                : index.subMap(prefix, true, prefix + '\uffff', false).keySet());
    ListContainerOptions all =
        ListContainerOptions.Builder.recursive().maxResults(Integer.MAX_VALUE);
    if (prefix != null) {
      all.prefix(prefix);
    }
    try {
      delegate().list(container, all).forEach(blob -> keys.add(blob.getName()));
    } catch (ContainerNotFoundException e) {
      // Gone: every key refreshes to absent.
    }
    keys.forEach(key -> refresh(container, key));
  }

  private void dropIndexIfGone(String container) {
    if (!delegate().containerExists(container)) {
      indexes.remove(container);
    }
  }

  private Object keyLock(String container, String key) {
    int hash = container.hashCode() * 31 + key.hashCode();
    return keyLocks[(hash ^ (hash >>> 16)) & (keyLocks.length - 1)];
  }

  private static String multipartPrefix(MultipartUpload upload) {
    return MULTIPART_PREFIX + upload.id() + "-" + upload.blobName() + "-";
  }

  private static String orSeparator(String delimiter) {
    return delimiter == null ? SEPARATOR : delimiter;
  }

  private static MutableStorageMetadata relativePath(String name) {
    MutableStorageMetadata metadata = new MutableStorageMetadataImpl();
    metadata.setType(StorageType.RELATIVE_PATH);
    metadata.setName(name);
    return metadata;
  }

  /**
   * The least string above every string that starts with {@code prefix}, or null if there is none
   * (the prefix is all U+FFFF).
   */
  private static String prefixEnd(String prefix) {
    int last = prefix.length() - 1;
    while (last >= 0 && prefix.charAt(last) == '\uffff') {
      last--;
    }
    return last < 0 ? null : prefix.substring(0, last) + (char) (prefix.charAt(last) + 1);
  }
}
