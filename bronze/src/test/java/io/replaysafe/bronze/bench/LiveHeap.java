package io.replaysafe.bronze.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The heap a measured run holds live, as opposed to its peak heap, which follows how much it
 * allocates and when the collector happens to run. Measured from a full collection before the run
 * (the live heap then: everything the JVM already holds, the embedded S3 store's objects among
 * them), as the heap in use after each collection during the run, and after a full collection at
 * its end:
 *
 * <ul>
 *   <li>{@link Figures#live()}: the highest heap after any of these collections, above the live
 *       heap before the run: the most the run held at once, as a GC log would show it;
 *   <li>{@link Figures#kept()}: the heap after the closing full collection, above the live heap
 *       before the run: what the run left behind (caches, the session's state).
 * </ul>
 *
 * A young collection leaves garbage in the old generation, so {@code live} is an upper bound of the
 * run's live set; a run short enough to need no collection shows its kept heap as its live heap.
 */
final class LiveHeap {
  private static final Set<String> HEAP_POOLS = heapPools();

  private final long before;
  private final AtomicLong highest = new AtomicLong();
  private final AtomicInteger collections = new AtomicInteger();
  private final List<NotificationEmitter> emitters = new ArrayList<>();
  private final NotificationListener listener = this::collected;

  /**
   * @param live the highest heap used after a collection, bytes above the start
   * @param kept the heap used after the closing full collection, above the start
   * @param collections the collections seen during the run, the closing one included
   */
  record Figures(long live, long kept, int collections) {}

  private LiveHeap() {
    this.before = heapUsed();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(listener, null, null);
        emitters.add(emitter);
      }
    }
  }

  /**
   * Watches every collection until {@link #stop}; called right after a full collection ({@link
   * BronzeBenchmark.Meter#start} makes one), whose heap in use is the live heap before the run.
   */
  static LiveHeap afterFullCollection() {
    return new LiveHeap();
  }

  /** Collects fully once more and returns the run's figures. */
  Figures stop() throws InterruptedException {
    int seen = collections.get();
    long after = heapUsedAfterFullCollection();
    // The collectors report asynchronously: wait (up to a second) for the closing one's report.
    for (int i = 0; i < 100 && collections.get() == seen; i++) {
      Thread.sleep(10);
    }
    for (NotificationEmitter emitter : emitters) {
      try {
        emitter.removeNotificationListener(listener);
      } catch (javax.management.ListenerNotFoundException e) {
        // already gone: nothing to remove
      }
    }
    long live = Math.max(highest.get(), after);
    return new Figures(Math.max(0, live - before), Math.max(0, after - before), collections.get());
  }

  private void collected(Notification notification, Object handback) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
        notification.getType())) {
      return;
    }
    GarbageCollectionNotificationInfo info =
        GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
    long used = 0;
    for (Map.Entry<String, MemoryUsage> pool :
        info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      if (HEAP_POOLS.contains(pool.getKey())) {
        used += pool.getValue().getUsed();
      }
    }
    highest.accumulateAndGet(used, Math::max);
    collections.incrementAndGet();
  }

  private static long heapUsedAfterFullCollection() {
    System.gc();
    return heapUsed();
  }

  private static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static Set<String> heapPools() {
    Set<String> names = new HashSet<>();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        names.add(pool.getName());
      }
    }
    return names;
  }
}
